/**
 * Backups of the embedded stores while the service runs (docs/operations.md): a consistent copy of each store file
 * in `DATA_DIR/backups/<YYYYMMDD-HHMMSS>/` (the time in TIMEZONE), written by a worker thread per file under a
 * temporary name and renamed when complete (store/backups.ts). Only the
 * admins of the service's own tenant (the tenant of the first admin) may take one: the copy holds every tenant's
 * data and fills the service's disk, not the caller's.
 */
import { join } from 'node:path'
import { Forbidden } from '../kernel/errors.ts'
import { formatTime } from '../kernel/time.ts'
import type { Actor, ServiceDeps } from './types.ts'
import { partialOf, type BackupResult } from '../../store/index.ts'
import { existsSync } from 'node:fs'

export interface BackupDeps extends ServiceDeps {
  config: { DATA_DIR: string; TIMEZONE: string }
  now?: () => number
  /** Writes the copy into a new directory (store/index.ts backupStores over the service's settings). */
  copy: (dir: string) => Promise<BackupResult>
}

/** `YYYYMMDD-HHMMSS` of `t` in `tz`. */
const stamp = (t: number, tz: string) =>
  formatTime(t, tz)!.replace(/-/g, '').replace(' ', '-').replace(/:/g, '')

export function backupService(d: BackupDeps) {
  const now = d.now ?? Date.now
  return {
    /** Refuses anyone but an admin of the service's own tenant (the route already requires the admin role). */
    async authorize(actor: Actor): Promise<void> {
      const first = await d.meta.accounts.firstAdmin()
      if (!first || first.tenantID !== actor.tenant)
        throw new Forbidden('role', "only the admins of the service's own tenant take backups")
    },

    /** A new directory under DATA_DIR/backups named by the time (a suffix when that second is taken). */
    directory(): string {
      const base = join(d.config.DATA_DIR, 'backups', stamp(now(), d.config.TIMEZONE))
      let dir = base
      // a name whose backup is being written (its .partial directory) is taken too
      const taken = (path: string) => existsSync(path) || existsSync(partialOf(path))
      for (let n = 2; taken(dir); n++) dir = `${base}-${n}`
      return dir
    },

    /** Writes the copy into `dir`; announces it. */
    async run(dir: string): Promise<BackupResult & { ms: number }> {
      const started = now()
      const result = { ...(await d.copy(dir)), ms: now() - started }
      d.events.emit('backup.completed', result)
      return result
    },
  }
}
