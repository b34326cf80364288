import { loadConfig, ConfigError } from './kernel/config.ts'
import { startService, type Service } from './service.ts'
import { exitOnWorkerDeath } from './kernel/crash.ts'
import { collectAtRest } from './kernel/memory.ts'

/**
 * The first SIGTERM or SIGINT stops taking work, commits what was accepted, closes every port and exits 0; a
 * second signal (a second or more later), or a shutdown still running after STOP_TIMEOUT_MS, exits 1 at once.
 */
const STOP_TIMEOUT_MS = 10_000
const REPEAT_GRACE_MS = 1_000

async function main() {
  const config = loadConfig()
  let started: Service | undefined
  // a dead database worker ends the process (exit 70): the stores cannot serve on without it
  const service = (started = await startService(config, {
    onWorkerDeath: exitOnWorkerDeath(() => started),
  }))
  console.log(`[devicecloud] API on ${service.url}/api/v1 (docs: ${service.url}/docs)`)
  // the start-up's memory goes back once the service is at rest (each store thread does the same for its own)
  collectAtRest()
  if (service.firstAdmin) {
    console.log(
      `[devicecloud] created the first admin ${service.firstAdmin.email} (tenant ${service.firstAdmin.tenantID})`,
    )
    if (service.firstAdmin.password)
      console.log(
        `[devicecloud] its generated password, shown once: ${service.firstAdmin.password}`,
      )
  }
  const { mqtt, ws, mqtts } = service.deps.endpoints
  const broker = [mqtt, ws, mqtts].filter(Boolean).join(', ')
  if (!service.deps.config.MQTT_URL && broker) console.log(`[devicecloud] MQTT on ${broker}`)
  let stoppingSince = 0
  const stop = (signal: string) => {
    if (stoppingSince) {
      // Ctrl-C under `npm start` arrives twice at once (the terminal's and the one npm forwards)
      if (Date.now() - stoppingSince < REPEAT_GRACE_MS) return
      console.error(`[devicecloud] ${signal} again: exiting now`)
      process.exit(1)
    }
    stoppingSince = Date.now()
    console.log(`[devicecloud] ${signal}: shutting down`)
    // a shutdown that hangs (a stuck store, a client that never lets go) still ends the process
    setTimeout(() => {
      console.error(`[devicecloud] shutdown took over ${STOP_TIMEOUT_MS / 1000} s: exiting`)
      process.exit(1)
    }, STOP_TIMEOUT_MS).unref()
    service.close().then(
      () => process.exit(0),
      (err) => {
        console.error('[devicecloud] shutdown failed', err)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(1)
})
