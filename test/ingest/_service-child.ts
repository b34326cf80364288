/**
 * The service in a child process, for the kill -9 and several-node tests: starts it on DATA_DIR (and DATABASE_URL,
 * when given) with free ports and prints one JSON line `{"url", "mqttPort"}` on stdout once it listens. The parent
 * kills it with SIGKILL.
 */
import { loadConfig } from '../../src/kernel/config.ts'
import { startService } from '../../src/service.ts'

const svc = await startService(
  loadConfig({
    DATA_DIR: process.env.DATA_DIR,
    // several nodes on one metadata database (unset: DATA_DIR's own)
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    // several nodes sharing one firmware volume (unset: DATA_DIR/firmware)
    ...(process.env.FIRMWARE_DIR ? { FIRMWARE_DIR: process.env.FIRMWARE_DIR } : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    MQTT_WS_PORT: '0',
    ADMIN_EMAIL: process.env.ADMIN_EMAIL,
    ADMIN_PASSWORD: process.env.ADMIN_PASSWORD,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    COMMAND_TIMEOUT: process.env.COMMAND_TIMEOUT,
  }),
)
process.stdout.write(JSON.stringify({ url: svc.url, mqttPort: svc.deps.broker.port }) + '\n')
// bounded: never outlive a parent that forgot it
setTimeout(() => process.exit(3), 120_000).unref()
