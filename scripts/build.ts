/**
 * `npm run build`: the service compiled once with esbuild into dist/ (not committed), so that `npm start` runs plain
 * JavaScript: no tsx in the process, no TypeScript compiled by each worker thread as it starts, the console
 * bundled once instead of in the service on its first request.
 *
 *   dist/server/main.js        src/main.ts and everything it imports, in one file (npm packages stay in
 *                              node_modules)
 *   dist/server/<entry>.js     each worker thread's module (WORKER_ENTRIES of store/libsql/worker/boot.ts) in
 *                              one file, beside main.js, where workerEntry() finds it when it runs compiled
 *   dist/server/migrations/    the metadata store's migrations (openDb reads them beside its code)
 *   dist/console/              the web console's bundle (buildConsole), which the service serves from there
 *   dist/build.json            when the build started, from which Node and esbuild
 *
 * `node scripts/build.ts --if-stale` (what `npm start` runs first) builds only when there is no build or a file or
 * folder of src/, ingest/, query/, store/ (or this script, package.json, tsconfig.json) changed since the last build
 * started. A build is written beside dist/ and moved into place whole: a service starting meanwhile reads the old
 * build or the new one, never part of one, and two builds at once end with one of them in place. This file runs on
 * Node's own type stripping (no tsx): it uses only erasable TypeScript.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'

const root = join(import.meta.dirname, '..')
const OUT = join(root, 'dist')
const STAMP = 'build.json'
/** What a build is made from: a change to any of these (a folder: anything under it) makes it stale. */
const INPUTS = [
  'src',
  'ingest',
  'query',
  'store',
  'scripts/build.ts',
  'package.json',
  'tsconfig.json',
]

/** The last change (ms) under `path`: files and folders (a folder's time changes when an entry is added or removed). */
function lastChange(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false })
  if (!st) return 0
  if (!st.isDirectory()) return st.mtimeMs
  let latest = st.mtimeMs
  for (const name of readdirSync(path)) latest = Math.max(latest, lastChange(join(path, name)))
  return latest
}

/** Whether dist/ holds a build started after the last change of every input. */
export function isFresh(out = OUT): boolean {
  try {
    const { startedAt } = JSON.parse(readFileSync(join(out, STAMP), 'utf8')) as {
      startedAt: number
    }
    return INPUTS.every((p) => lastChange(join(root, p)) < startedAt)
  } catch {
    return false // no build, or no stamp
  }
}

/** Builds the server's bundles, its migrations and the console into `dir` (which must not exist). */
async function buildInto(dir: string, startedAt: number): Promise<void> {
  const { build, version } = await import('esbuild')
  const { WORKER_ENTRIES } = await import('../store/libsql/worker/boot.ts')
  const { buildConsole } = await import('../src/http/console.ts')
  const server = join(dir, 'server')
  await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/main.ts', ...WORKER_ENTRIES },
    outdir: server,
    bundle: true,
    // what is imported dynamically (the InfluxDB store, the external broker) becomes a chunk loaded when first
    // used; entries and chunks are all in dist/server/, so code bundled from any folder finds its siblings there
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    tsconfig: 'tsconfig.json',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  })
  cpSync(join(root, 'store/libsql/migrations'), join(server, 'migrations'), { recursive: true })
  for (const [name, asset] of await buildConsole()) {
    const path = join(dir, 'console', name)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, asset.body)
  }
  const stamp = { startedAt, node: process.version, esbuild: version }
  writeFileSync(join(dir, STAMP), JSON.stringify(stamp, null, 2) + '\n')
}

/** Moves the finished build `dir` to `out`, the build there before out of the way first. */
function moveIntoPlace(dir: string, out: string): void {
  const old = `${basename(out)}.old-${process.pid}-`
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(dir, out)
      break
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt > 10) throw e
    }
    try {
      renameSync(out, join(dirname(out), `${old}${attempt}`))
    } catch (e) {
      // another build moved it away first
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
  }
  for (const name of readdirSync(dirname(out)))
    if (name.startsWith(old)) rmSync(join(dirname(out), name), { recursive: true, force: true })
}

/** Builds into `out` (default dist/); answers the ms it took. */
export async function buildAll(out = OUT): Promise<number> {
  const startedAt = Date.now()
  const dir = `${out}.tmp-${process.pid}`
  rmSync(dir, { recursive: true, force: true })
  try {
    await buildInto(dir, startedAt)
    moveIntoPlace(dir, out)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return Date.now() - startedAt
}

if (import.meta.main) {
  const ifStale = process.argv.includes('--if-stale')
  if (!(ifStale && existsSync(OUT) && isFresh())) {
    const ms = await buildAll()
    console.error(`[build] dist/ built in ${ms} ms`)
  }
}
