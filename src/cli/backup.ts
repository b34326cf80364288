/**
 * `npm run backup -- <dir>`: with the service's own settings (DATA_DIR, DATABASE_URL, INFLUX_URL), writes a
 * consistent copy of the embedded stores into `<dir>` (it must be empty or absent): `devicecloud.db`,
 * `telemetry.db` and `backup.json`, each store one snapshot. Safe while the service runs: the copies only read.
 * The copy is written as `.<dir>.partial` and renamed when complete, so `<dir>` never holds half a backup.
 * `npm run restore -- <dir>` puts it back.
 */
import { resolve } from 'node:path'
import { loadConfig } from '../kernel/config.ts'
import { backupStores } from '../../store/index.ts'

async function main() {
  const dir = process.argv[2]
  if (!dir) throw new Error('usage: npm run backup -- <directory>')
  const started = Date.now()
  const result = await backupStores(loadConfig(), resolve(dir))
  for (const f of result.files) console.log(`[devicecloud] ${f.name}: ${f.bytes} bytes`)
  console.log(`[devicecloud] backup written to ${result.path} in ${Date.now() - started} ms`)
}

main().catch((e: unknown) => {
  console.error(`[devicecloud] backup: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
