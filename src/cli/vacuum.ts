/**
 * `npm run vacuum`, with the service stopped: with the service's own settings (DATA_DIR, DATABASE_URL,
 * INFLUX_URL), gives the free pages of the embedded stores' files back to the file system, converting a file of an
 * earlier version to incremental vacuum first (one VACUUM, ~90 MB/s; the disk needs the data's size twice). The
 * service does that itself at start for files with at most 256 MiB in use, and then gives pages back as it runs;
 * this is for larger files. It refuses while a process has the files open.
 */
import { loadConfig } from '../kernel/config.ts'
import { vacuumStores } from '../../store/index.ts'

async function main() {
  const started = Date.now()
  for (const f of await vacuumStores(loadConfig()))
    console.log(`[devicecloud] ${f.name}: ${f.before} → ${f.after} bytes`)
  console.log(`[devicecloud] vacuum done in ${Date.now() - started} ms`)
}

main().catch((e: unknown) => {
  console.error(`[devicecloud] vacuum: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
