import { loadConfig, ConfigError } from './kernel/config.ts'
import { startService } from './service.ts'

async function main() {
  const config = loadConfig()
  const service = await startService(config)
  console.log(`[devicecloud] API on ${service.url}/api/v1 (docs: ${service.url}/docs)`)
  if (service.firstAdmin) {
    console.log(
      `[devicecloud] created the first admin ${service.firstAdmin.email} (tenant ${service.firstAdmin.tenantID})`,
    )
    if (service.firstAdmin.password)
      console.log(
        `[devicecloud] its generated password, shown once: ${service.firstAdmin.password}`,
      )
  }
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`[devicecloud] ${signal}: shutting down`)
    await service.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(1)
})
