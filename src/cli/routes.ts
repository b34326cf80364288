/**
 * `npm run routes`: every route of the API, one line each, as `METHOD /api/v1/path → file:line` of the line that
 * declares it (Router.declaredAt: a route a helper of src/http/ builds is named by the helper's caller), in the order
 * they are mounted. It starts the service on a temporary DATA_DIR with no listener reachable from outside (ports 0 on
 * 127.0.0.1), builds the routes of API_VARIANT (A unless set) and stops it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../app.ts'
import { loadConfig } from '../kernel/config.ts'
import { startService } from '../service.ts'

const root = join(import.meta.dirname, '../..')

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-routes-'))
  try {
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_WS_PORT: '0',
      ADMIN_EMAIL: 'routes@devicecloud.local',
      ADMIN_PASSWORD: 'only-for-listing-routes',
      LOG_LEVEL: 'silent',
      ...(process.env.API_VARIANT ? { API_VARIANT: process.env.API_VARIANT } : {}),
    })
    const svc = await startService(config)
    try {
      const { routers } = createApp(svc.deps)
      const lines = routers.flatMap((r) =>
        r.defs.map(
          (d, i) => `${d.method.toUpperCase()} /api/v1${d.path} → ${r.declaredAt(i, root)}`,
        ),
      )
      process.stdout.write(lines.join('\n') + '\n')
    } finally {
      await svc.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e: unknown) => {
  console.error(`[devicecloud] routes: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
