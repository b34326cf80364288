/**
 * Child process of test/src/crash.test.ts (not a test file): starts the service on DATA_DIR with the
 * `onWorkerDeath` of src/main.ts, prints `ready`, then ends the telemetry worker thread from the test's side.
 */
import type { Worker } from 'node:worker_threads'
import { loadConfig } from '../../src/kernel/config.ts'
import { startService, type Service } from '../../src/service.ts'
import { exitOnWorkerDeath } from '../../src/kernel/crash.ts'

const started: Service | undefined = await startService(
  loadConfig({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    MQTT_WS_PORT: '0',
    LOG_LEVEL: 'error',
  }),
  { onWorkerDeath: exitOnWorkerDeath(() => started) },
)
setTimeout(() => process.exit(3), 15_000).unref() // never outlive a broken test
console.log('ready')
// the test's own way in: the thread behind the telemetry store's proxy (no product path ends it)
const worker = (started.deps.telemetry as unknown as { port: { worker: Worker } }).port.worker
await worker.terminate()
