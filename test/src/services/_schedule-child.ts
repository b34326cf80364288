/**
 * The service in a child process for the two-node schedule test: DATA_DIR of its own, the metadata database at
 * DATABASE_URL shared with the other node, and a clock that runs CLOCK_SPEED times faster than the real one from
 * CLOCK_BASE (epoch ms), the same on every node. Prints one JSON line `{"url"}` once it listens; SIGTERM stops it.
 */
import { loadConfig } from '../../../src/kernel/config.ts'
import { startService } from '../../../src/service.ts'

const base = Number(process.env.CLOCK_BASE)
const speed = Number(process.env.CLOCK_SPEED)
const svc = await startService(
  loadConfig({
    DATA_DIR: process.env.DATA_DIR,
    DATABASE_URL: process.env.DATABASE_URL,
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    MQTT_WS_PORT: '0',
    ADMIN_EMAIL: process.env.ADMIN_EMAIL,
    ADMIN_PASSWORD: process.env.ADMIN_PASSWORD,
    LOG_LEVEL: 'error',
  }),
  { now: () => base + (Date.now() - base) * speed },
)
process.stdout.write(JSON.stringify({ url: svc.url }) + '\n')
process.once('SIGTERM', () => void svc.close().finally(() => process.exit(0)))
// bounded: never outlive a parent that forgot it
setTimeout(() => process.exit(3), 120_000).unref()
