/**
 * Backups and restores of the embedded stores. A backup is complete or it is not there: its files are written
 * into `.<name>.partial/` beside the final directory (with an `owner` file naming the process that writes it),
 * `backup.json` lists every file once all are copied, and the directory is renamed to its final name last. A crash
 * leaves only a `.partial` directory, which `cleanPartialBackups` removes once its owner process is gone (the
 * service does so at start-up). A restore (service stopped) checks every file of a backup before it moves the
 * current files aside and puts the copies in place.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { hostname } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import type { Config } from '../src/kernel/config.ts'
import { copyDatabase } from './libsql/worker/backup.ts'
import { checkDatabase, databaseInUse, firmwareFilesOf } from './libsql/files.ts'
import { firmwareDir } from './firmware-files.ts'

/** What a backup wrote: the directory and each file with its size. */
export interface BackupResult {
  path: string
  files: Array<{ name: string; bytes: number }>
}

/** The file a complete backup holds beside its databases: what it holds, written after every copy. */
export const MANIFEST = 'backup.json'
/** The file naming the process that writes a `.partial` directory. */
const OWNER = 'owner'
const PARTIAL = /^\..+\.partial$/

interface Manifest {
  format: 1
  createdAt: string
  files: BackupResult['files']
}

/** Firmware packages are kept in a backup (and in DATA_DIR) under this directory; their manifest names start so. */
const FIRMWARE = 'firmware'
/** A kept package file (store/firmware-files.ts): `<productIntID>-<random>.bin`. */
const PACKAGE = /^\d+-[A-Za-z0-9]+\.bin$/

/** A file linked into the backup (packages never change once kept: a hard link is a copy), else copied. */
function linkOrCopy(from: string, to: string) {
  try {
    linkSync(from, to)
  } catch {
    copyFileSync(from, to)
    syncFile(to)
  }
}

/**
 * The firmware packages of a backup being written in `partial`: every kept package is linked in before the
 * databases are copied (so a package deleted meanwhile is still there), then those the metadata copy does not
 * name are dropped and any it names that came after are linked. Answers the packages kept, as manifest entries.
 */
function backupPackages(config: Config, partial: string) {
  const source = firmwareDir(config)
  const target = join(partial, FIRMWARE)
  const linked = new Set<string>()
  const link = (name: string) => {
    if (linked.has(name) || !existsSync(join(source, name))) return
    linkOrCopy(join(source, name), join(target, name))
    linked.add(name)
  }
  return {
    /** Before the databases are copied. */
    before() {
      if (!existsSync(source)) return
      mkdirSync(target, { recursive: true })
      for (const name of readdirSync(source)) if (PACKAGE.test(name)) link(name)
    },
    /** After: the packages the metadata copy names (all linked ones when it is not a file of this backup). */
    after(): BackupResult['files'] {
      const meta = join(partial, 'devicecloud.db')
      if (existsSync(meta)) {
        const named = new Set(firmwareFilesOf(meta))
        if (named.size) mkdirSync(target, { recursive: true })
        for (const name of named) link(name)
        for (const name of [...linked].filter((n) => !named.has(n))) {
          rmSync(join(target, name))
          linked.delete(name)
        }
      }
      return [...linked].sort().map((name) => ({
        name: `${FIRMWARE}/${name}`,
        bytes: statSync(join(target, name)).size,
      }))
    },
  }
}

/** The temporary directory a backup into `dir` is written under: `.<name>.partial` beside it. */
export const partialOf = (dir: string) => join(dirname(dir), `.${basename(dir)}.partial`)

/** Each embedded store file of `config`: its name in a backup and its path in the running service. */
export function storeFiles(config: Config): Array<{ name: string; path: string }> {
  const files: Array<{ name: string; path: string }> = []
  const meta = config.DATABASE_URL
  if (meta.startsWith('file:') && !meta.includes(':memory:'))
    files.push({ name: 'devicecloud.db', path: resolve(meta.slice('file:'.length).split('?')[0]!) })
  if (!config.INFLUX_URL)
    files.push({ name: 'telemetry.db', path: resolve(config.DATA_DIR, 'telemetry.db') })
  return files
}

/**
 * A consistent copy of the embedded stores in `dir` (created; it must be empty or absent): the metadata database
 * when it is a local file (`devicecloud.db`) and the embedded telemetry store (`telemetry.db`), each one snapshot
 * taken while the service runs (every write committed before the copy began is in it), and the firmware packages
 * the metadata copy names (`firmware/`, hard links where the volume allows). InfluxDB and sqld keep their data
 * elsewhere: their own backup tools apply. `dir` appears only once every file is in it.
 */
export async function backupStores(config: Config, dir: string): Promise<BackupResult> {
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new Error(`backup directory ${dir} is not empty`)
  const partial = partialOf(dir)
  mkdirSync(dirname(dir), { recursive: true })
  if (existsSync(partial)) {
    if (ownerAlive(partial)) throw new Error(`a backup into ${dir} is being written`)
    rmSync(partial, { recursive: true, force: true })
  }
  mkdirSync(partial)
  writeFileSync(join(partial, OWNER), JSON.stringify(processToken(process.pid)))
  try {
    const files: BackupResult['files'] = []
    const packages = backupPackages(config, partial)
    packages.before()
    for (const { name, path } of storeFiles(config)) {
      const dest = join(partial, name)
      await copyDatabase(`file:${path}`, dest)
      syncFile(dest)
      files.push({ name, bytes: statSync(dest).size })
    }
    files.push(...packages.after())
    const manifest: Manifest = { format: 1, createdAt: new Date().toISOString(), files }
    writeFileSync(join(partial, MANIFEST), JSON.stringify(manifest, null, 2) + '\n')
    syncFile(join(partial, MANIFEST))
    syncFile(partial)
    if (existsSync(dir)) rmdirSync(dir) // empty, checked above
    renameSync(partial, dir)
    syncFile(dirname(dir))
    rmSync(join(dir, OWNER))
    return { path: dir, files }
  } catch (e) {
    rmSync(partial, { recursive: true, force: true })
    throw e
  }
}

/**
 * Removes every `.<name>.partial` directory under `parent` whose writer is gone (a backup cut short by a crash);
 * one whose writer still runs (another process's backup) stays. Answers the names removed.
 */
export function cleanPartialBackups(parent: string): string[] {
  if (!existsSync(parent)) return []
  const removed: string[] = []
  for (const name of readdirSync(parent)) {
    const path = join(parent, name)
    if (!PARTIAL.test(name) || ownerAlive(path)) continue
    rmSync(path, { recursive: true, force: true })
    removed.push(name)
  }
  return removed
}

/** What a restore did: the files put in place, and where the files they replaced were moved. */
export interface RestoreResult {
  restored: BackupResult['files']
  /** The directory holding the replaced files (undefined when there were none). */
  previous?: string
  /** Things worth saying that did not stop the restore. */
  warnings: string[]
}

/**
 * Puts the backup in `dir` in place of the stores of `config` (the service stopped): every file of the backup is
 * checked first (listed in its manifest with its size, and whole by `PRAGMA quick_check`), then the current files
 * (with their WAL) are moved into `DATA_DIR/pre-restore-<time>/` and the copies put in place, each written under a
 * temporary name and renamed. Throws, changing nothing, when a check fails or a store is still open.
 */
export function restoreBackup(config: Config, dir: string, now = new Date()): RestoreResult {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`)
  if (PARTIAL.test(basename(dir)))
    throw new Error(`${dir} is an interrupted backup (a .partial directory), not a backup`)
  const warnings: string[] = []
  const targets = storeFiles(config)
  const manifestPath = join(dir, MANIFEST)
  let listed: BackupResult['files']
  if (existsSync(manifestPath)) {
    listed = readManifest(manifestPath).files
  } else {
    listed = targets
      .filter((t) => existsSync(join(dir, t.name)))
      .map((t) => ({ name: t.name, bytes: statSync(join(dir, t.name)).size }))
    warnings.push(
      `${MANIFEST} is missing (a backup written before manifests): its files were checked one by one`,
    )
  }
  const packages = listed.filter((f) => f.name.startsWith(`${FIRMWARE}/`))
  const restore = listed.flatMap((f) => {
    if (packages.includes(f)) return []
    const target = targets.find((t) => t.name === f.name)
    if (target) return [{ ...f, target: target.path, source: join(dir, f.name) }]
    warnings.push(`${f.name} is in the backup but not used by these settings: left out`)
    return []
  })
  if (restore.length === 0) throw new Error(`${dir} holds no store these settings use`)
  for (const t of targets)
    if (!listed.some((f) => f.name === t.name))
      warnings.push(`${t.name} is not in the backup: the current one stays`)
  for (const f of restore) {
    if (!existsSync(f.source)) throw new Error(`${f.name}: listed in ${MANIFEST} but missing`)
    const bytes = statSync(f.source).size
    if (bytes !== f.bytes) throw new Error(`${f.name}: ${bytes} bytes, ${MANIFEST} says ${f.bytes}`)
    const check = checkDatabase(f.source)
    if (check !== 'ok') throw new Error(`${f.name}: damaged (${check})`)
  }
  for (const f of packages) {
    const path = join(dir, f.name)
    if (!existsSync(path)) throw new Error(`${f.name}: listed in ${MANIFEST} but missing`)
    const bytes = statSync(path).size
    if (bytes !== f.bytes) throw new Error(`${f.name}: ${bytes} bytes, ${MANIFEST} says ${f.bytes}`)
  }
  for (const f of restore)
    if (databaseInUse(f.target))
      throw new Error(`${f.target} is open in a running process: stop the service before restoring`)

  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  const previous = resolve(config.DATA_DIR, `pre-restore-${stamp}`)
  let moved = false
  for (const f of restore)
    for (const suffix of ['', '-wal', '-shm']) {
      if (!existsSync(f.target + suffix)) continue
      mkdirSync(previous, { recursive: true })
      renameSync(f.target + suffix, join(previous, basename(f.target) + suffix))
      moved = true
    }
  for (const f of restore) {
    mkdirSync(dirname(f.target), { recursive: true })
    const temp = `${f.target}.restoring`
    copyFileSync(f.source, temp)
    syncFile(temp)
    renameSync(temp, f.target)
  }
  // the packages go with the metadata they belong to: the current ones are set aside with the databases
  if (packages.length || restore.some((f) => f.name === 'devicecloud.db'))
    moved = restorePackages(config, dir, packages, previous) || moved
  return {
    restored: [...restore.map(({ name, bytes }) => ({ name, bytes })), ...packages],
    previous: moved ? previous : undefined,
    warnings,
  }
}

/**
 * Puts a backup's packages in DATA_DIR/firmware: the directory there now is moved into `previous` and the packages
 * copied into a new one (each under a temporary name, renamed). True when a directory was moved.
 */
function restorePackages(
  config: Config,
  dir: string,
  packages: BackupResult['files'],
  previous: string,
): boolean {
  const current = firmwareDir(config)
  let moved = false
  if (existsSync(current)) {
    mkdirSync(previous, { recursive: true })
    renameSync(current, join(previous, FIRMWARE))
    moved = true
  }
  mkdirSync(current, { recursive: true })
  for (const f of packages) {
    const target = join(current, basename(f.name))
    copyFileSync(join(dir, f.name), `${target}.restoring`)
    syncFile(`${target}.restoring`)
    renameSync(`${target}.restoring`, target)
  }
  return moved
}

function readManifest(path: string): Manifest {
  let m: unknown
  try {
    m = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new Error(`${path}: not JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  const files = (m as Partial<Manifest> | null)?.files
  if (
    !Array.isArray(files) ||
    !files.every((f) => typeof f?.name === 'string' && Number.isInteger(f?.bytes))
  )
    throw new Error(`${path}: not a backup manifest`)
  return m as Manifest
}

/** Flushes a file or directory to disk, so a rename after it never names an incomplete file. */
function syncFile(path: string) {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Who a process is, for as long as it lives: host, pid, and on Linux the boot and the process's start time (a pid
 * taken again by another process after a restart, as pid 1 in a container always is, is another owner).
 */
function processToken(pid: number): string {
  let started = ''
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    // field 22 of /proc/<pid>/stat, counted after the command name's closing parenthesis
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    started = `${boot}:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`
  } catch {
    // not Linux, or the process is gone
  }
  return `${hostname()}:${pid}:${started}`
}

/** Whether the process named by the `owner` file of a `.partial` directory still runs (on this host). */
function ownerAlive(partial: string): boolean {
  let owner: string
  try {
    owner = JSON.parse(readFileSync(join(partial, OWNER), 'utf8')) as string
  } catch {
    return false // no owner file: the crash came before it was written
  }
  const [host, pidText] = owner.split(':')
  const pid = Number(pidText)
  if (host !== hostname()) return true // another machine's, on a shared volume: not ours to judge
  if (!Number.isInteger(pid) || pid === process.pid) return false
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  return processToken(pid) === owner
}
