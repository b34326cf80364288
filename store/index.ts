import { FirmwareFiles, firmwareDir } from './firmware-files.ts'
import type { Config } from '../src/kernel/config.ts'
import { errorLog, type Logger } from '../src/kernel/log.ts'
import type { TelemetryStore } from './telemetry.ts'
import type { MetaStore } from './types.ts'
import { LibsqlTelemetryStore } from './tsdb/store.ts'
import { keepPreparedStatements, openDb, type Db } from './libsql/db.ts'
import { PortDb } from './libsql/worker/port-db.ts'
import { WorkerTelemetryStore } from './tsdb/worker/proxy.ts'
import { vacuumFile } from './libsql/vacuum.ts'
import { databaseInUse } from './libsql/files.ts'
import { storeFiles } from './backups.ts'
import { createMetaStore } from './libsql/meta.ts'

/** The stores the service runs on. */
export interface Stores {
  meta: MetaStore
  telemetry: TelemetryStore
  /** Firmware packages' files (DATA_DIR/firmware). */
  firmwareFiles: FirmwareFiles
  /** Closes both stores (after everything that writes to them stopped). */
  close(): Promise<void>
}

export interface StoreOptions {
  /** Where the stores log their background errors (default: the fallback logger). */
  logger?: Logger
  /**
   * Hears once of a database or telemetry worker thread that died (after it is logged). Every later call of that
   * store fails with Unavailable, so a process should end (src/kernel/crash.ts) and be restarted.
   */
  onWorkerDeath?: (e: Error) => void
}

/**
 * The telemetry store the configuration asks for: InfluxDB 2.x when INFLUX_URL is set, else the embedded one
 * (in a worker thread with DB_WORKERS=on).
 */
export async function createTelemetryStore(
  config: Config,
  opts: StoreOptions = {},
): Promise<TelemetryStore> {
  const log = errorLog(opts.logger, 'telemetry')
  if (config.INFLUX_URL) {
    // loaded only when configured: InfluxDB's client costs the embedded default ~110 ms of start and ~3 MB of heap
    const { InfluxTelemetryStore } = await import('./influx/telemetry.ts')
    return InfluxTelemetryStore.open({
      url: config.INFLUX_URL,
      token: config.INFLUX_TOKEN!,
      org: config.INFLUX_ORG!,
      bucket: config.INFLUX_BUCKET!,
      rollupBucket: config.INFLUX_ROLLUP_BUCKET ?? `${config.INFLUX_BUCKET}_rollups`,
      timezone: config.TIMEZONE,
      onError: (e: unknown) => log('rollups failed', e),
    })
  }
  const options = {
    url: `file:${config.DATA_DIR.replace(/\/$/, '')}/telemetry.db`,
    timezone: config.TIMEZONE,
    onError: (e: unknown) => log('background flush failed', e),
  }
  // with DB_WORKERS=on (the default) the store runs in its own thread, off the broker's and the API's
  if (config.DB_WORKERS === 'on')
    return WorkerTelemetryStore.open({
      ...options,
      onFail: (e) => {
        log('the telemetry worker died', e)
        opts.onWorkerDeath?.(e)
      },
    })
  keepPreparedStatements() // as the workers' connections do (DB_WORKERS=off: the SQL runs in this thread)
  return LibsqlTelemetryStore.open(options)
}

/** Opens the metadata store alone (migrated), for tools that run beside the service (`npm run reset-admin`). */
export async function openMetaStore(config: Config): Promise<MetaStore> {
  return createMetaStore(
    await openDb({ url: config.DATABASE_URL, authToken: config.DATABASE_AUTH_TOKEN }),
  )
}

/**
 * The metadata database: with DB_WORKERS=on and a local file, in worker threads (PortDb: a store worker owns
 * the only write connection and migrates, readers answer reads while they come), so its SQL never runs on the
 * thread of the broker and the API; otherwise in this thread (LocalDb; always for sqld URLs).
 */
export function openMetaDb(config: Config, opts: StoreOptions = {}): Promise<Db> {
  const url = config.DATABASE_URL
  const embedded = url.startsWith('file:') && !url.includes(':memory:')
  const log = errorLog(opts.logger, 'metadata')
  if (config.DB_WORKERS === 'on' && embedded)
    return PortDb.open({
      url,
      readers: config.DB_READERS,
      onFail: (e) => {
        log('a database worker died', e)
        opts.onWorkerDeath?.(e)
      },
      onReaderError: (e) => log('a reader thread could not start', e),
      onCheckpointError: (e) => log('a WAL checkpoint failed', e),
    })
  // in this thread, a local file's connection keeps its prepared statements as a worker's does (a device detail's
  // projected SELECT prepared again on every call cost ~500 µs)
  if (embedded) keepPreparedStatements()
  return openDb({ url, authToken: config.DATABASE_AUTH_TOKEN })
}

/**
 * Opens the stores the configuration names: the metadata store in libSQL at DATABASE_URL (a local file or sqld,
 * migrated to the latest schema at open; see openMetaDb) and the telemetry store (createTelemetryStore).
 * `close()` closes telemetry first, then the metadata store (checkpoint, readers, writer, then its threads).
 */
export async function createStores(config: Config, opts: StoreOptions = {}): Promise<Stores> {
  // both at once: each opens its own file in its own threads (with workers, start-up waits for the slower one only)
  const [db, tele] = await Promise.allSettled([
    openMetaDb(config, opts),
    createTelemetryStore(config, opts),
  ])
  if (db.status === 'rejected' || tele.status === 'rejected') {
    if (db.status === 'fulfilled') await createMetaStore(db.value).close()
    if (tele.status === 'fulfilled') await tele.value.close()
    throw db.status === 'rejected' ? db.reason : (tele as PromiseRejectedResult).reason
  }
  const meta = createMetaStore(db.value)
  const telemetry = tele.value
  return {
    meta,
    telemetry,
    firmwareFiles: new FirmwareFiles(firmwareDir(config)),
    async close() {
      await telemetry.close()
      await meta.close()
    },
  }
}

export { type ReceivedFile } from './firmware-files.ts'

export {
  backupStores,
  cleanPartialBackups,
  partialOf,
  restoreBackup,
  type BackupResult,
} from './backups.ts'

/**
 * With the service stopped (`npm run vacuum`): the embedded stores' files converted to incremental vacuum whatever
 * their size, or their free pages given back (store/libsql/vacuum.ts vacuumFile). The service converts a file of an
 * earlier version at start only while its pages in use hold at most 256 MiB. Refuses while a process has a file
 * open. Answers each file's bytes before and after.
 */
export async function vacuumStores(
  config: Config,
): Promise<Array<{ name: string; before: number; after: number }>> {
  const files = storeFiles(config)
  for (const f of files)
    if (databaseInUse(f.path))
      throw new Error(`${f.path} is open in a running process: stop the service before vacuuming`)
  const out = []
  for (const { name, path } of files) {
    const r = await vacuumFile(`file:${path}`)
    if (r) out.push({ name, ...r })
  }
  return out
}
