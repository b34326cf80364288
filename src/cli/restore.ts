/**
 * `npm run restore -- <dir>`: with the service stopped, puts the backup in `<dir>` (written by `npm run backup` or
 * `POST /api/v1/admin/backup`) in place of the embedded stores named by the service's settings (DATA_DIR,
 * DATABASE_URL, INFLUX_URL). Every file is checked first (size as listed in backup.json, `PRAGMA quick_check`);
 * the files it replaces are moved into `DATA_DIR/pre-restore-<time>/`, not deleted. Refuses, changing nothing,
 * while the service runs or when a check fails.
 */
import { resolve } from 'node:path'
import { loadConfig } from '../kernel/config.ts'
import { restoreBackup } from '../../store/index.ts'

function main() {
  const dir = process.argv[2]
  if (!dir) throw new Error('usage: npm run restore -- <backup directory>')
  const result = restoreBackup(loadConfig(), resolve(dir))
  for (const w of result.warnings) console.log(`[devicecloud] note: ${w}`)
  for (const f of result.restored)
    console.log(`[devicecloud] restored ${f.name} (${f.bytes} bytes)`)
  if (result.previous) console.log(`[devicecloud] the files it replaced are in ${result.previous}`)
}

try {
  main()
} catch (e: unknown) {
  console.error(`[devicecloud] restore: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
}
