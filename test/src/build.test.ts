/**
 * `npm run build` and the service it builds: dist/ holds the server's bundle, one bundle a worker thread, the
 * migrations and the console; `--if-stale` leaves a fresh build alone; and the built service, run as `npm start` runs
 * it (its node flags, dist/server/main.js) on a temp DATA_DIR and free ports, answers /healthz and /readyz with its
 * worker threads started from their bundles, serves the console from the build, and stops on SIGTERM with 0.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WORKER_ENTRIES } from '../../store/libsql/worker/boot.ts'
import { startFlags } from '../../bench/_support/start-flags.ts'
import { freePort, processEnv } from '../_support/ports.ts'
import { threadNames } from '../_support/procs.ts'
import { influxOrMissing } from '../_support/influx.ts'

const root = join(import.meta.dirname, '../..')
const dist = join(root, 'dist')
const stamp = () => readFileSync(join(dist, 'build.json'), 'utf8')

const build = suite('npm run build')

build('npm run build, then --if-stale :: dist/ holds every bundle; a fresh build is kept', () => {
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8', timeout: 120_000 })
  assert.is(r.status, 0, r.stdout + r.stderr)
  const server = join(dist, 'server')
  for (const name of ['main', ...Object.keys(WORKER_ENTRIES)])
    assert.ok(existsSync(join(server, `${name}.js`)), `dist/server/${name}.js`)
  assert.ok(existsSync(join(server, 'migrations', '001_init.sql')), 'the migrations beside them')
  for (const file of ['app.js', 'app.css'])
    assert.ok(existsSync(join(dist, 'console', file)), `dist/console/${file}`)
  assert.ok(readdirSync(join(dist, 'console', 'chunks')).length > 0, 'the pages as chunks')
  for (const file of readdirSync(server).filter((f) => f.endsWith('.js')))
    assert.not.match(readFileSync(join(server, file), 'utf8'), /from "tsx|import\("tsx/, file)
  // no worker thread loads zod (validation is the main thread's, at its edges): in the store threads' shared chunk it
  // cost each thread ~3 MB of heap at rest
  for (const name of Object.keys(WORKER_ENTRIES))
    for (const file of bundleFiles(server, `${name}.js`))
      assert.not.match(readFileSync(join(server, file), 'utf8'), /from "zod"/, `${name}: ${file}`)
  const before = stamp()
  const again = spawnSync(process.execPath, ['scripts/build.ts', '--if-stale'], {
    cwd: root,
    encoding: 'utf8',
  })
  assert.is(again.status, 0, again.stderr)
  assert.is(again.stderr, '', 'nothing built')
  assert.is(stamp(), before)
})

/** A bundle of dist/server and the chunks it imports, at any depth (their static imports). */
function bundleFiles(server: string, entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const m of readFileSync(join(server, file), 'utf8').matchAll(/from "\.\/([\w-]+\.js)"/g))
      visit(m[1]!)
  }
  visit(entry)
  return [...seen]
}

/**
 * Runs the built service as `npm start` does, with `env` added, until /healthz answers; then `check(url, pid)`, then
 * SIGTERM, which must exit 0.
 */
async function withBuilt(
  env: Record<string, string>,
  check: (url: string, pid: number, output: () => string) => Promise<void>,
) {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-build-'))
  const port = await freePort()
  const child = spawn(process.execPath, [...startFlags(), 'dist/server/main.js'], {
    cwd: root,
    env: {
      ...processEnv(port),
      DATA_DIR: dir,
      ADMIN_PASSWORD: 'admin-password-1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  const url = `http://127.0.0.1:${port}`
  try {
    let healthz: Response | undefined
    for (let i = 0; i < 600 && !healthz && child.exitCode === null; i++) {
      healthz = await fetch(`${url}/healthz`).catch(() => undefined)
      if (!healthz) await new Promise((r) => setTimeout(r, 50))
    }
    assert.ok(healthz, output)
    assert.is(healthz.status, 200)
    assert.equal(await healthz.json(), { status: 'ok' })
    const readyz = await fetch(`${url}/readyz`)
    assert.is(readyz.status, 200, output)
    assert.is(((await readyz.json()) as { status: string }).status, 'ok')
    await check(url, child.pid!, () => output)
    child.kill('SIGTERM')
    assert.is(await exited, 0, output)
  } finally {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

build(
  'the built service :: /healthz and /readyz 200, workers from their bundles, the console from dist, SIGTERM exits 0',
  () =>
    withBuilt({}, async (url, pid) => {
      const threads = threadNames(pid)
      // readers start when reads find the store worker busy (PortDb), checkpointers with writes
      for (const name of ['db-writer', 'telemetry'])
        assert.ok(threads.includes(name), `${name} in ${threads.join(',')}`)
      const app = await fetch(`${url}/console/app.js`)
      assert.is(app.status, 200)
      assert.is(await app.text(), readFileSync(join(dist, 'console', 'app.js'), 'utf8'))
    }),
)

const influx = await influxOrMissing()
if (influx)
  build(
    'the built service on InfluxDB :: its store loaded from a chunk main.js imports only then, /readyz 200',
    () =>
      withBuilt(
        {
          INFLUX_URL: influx.url,
          INFLUX_TOKEN: influx.token,
          INFLUX_ORG: influx.org,
          INFLUX_BUCKET: influx.bucket,
        },
        async (_url, pid) => {
          assert.not.ok(threadNames(pid).includes('telemetry'), 'no embedded telemetry thread')
          const chunks = readdirSync(join(dist, 'server')).filter((f) => f.endsWith('.js'))
          assert.ok(
            chunks.some((f) =>
              readFileSync(join(dist, 'server', f), 'utf8').includes('@influxdata/influxdb-client'),
            ),
            'a chunk imports the InfluxDB client',
          )
          assert.not.match(
            readFileSync(join(dist, 'server', 'main.js'), 'utf8'),
            /from "@influxdata/,
          )
        },
      ).finally(() => influx.stop()),
  )

build.run()
