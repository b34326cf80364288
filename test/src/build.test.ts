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
import { freePort } from '../_support/ports.ts'

const root = join(import.meta.dirname, '../..')
const dist = join(root, 'dist')
const stamp = () => readFileSync(join(dist, 'build.json'), 'utf8')

/** The names of a process's threads (Linux: a worker thread carries the name it was started with). */
const threadNames = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).map((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim()
    } catch {
      return '' // ended meanwhile
    }
  })

const build = suite('npm run build')

build('npm run build, then --if-stale :: dist/ holds every bundle; a fresh build is kept', () => {
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8', timeout: 120_000 })
  assert.is(r.status, 0, r.stdout + r.stderr)
  const server = join(dist, 'server')
  for (const name of ['main', ...WORKER_ENTRIES])
    assert.ok(existsSync(join(server, `${name}.js`)), `dist/server/${name}.js`)
  assert.ok(existsSync(join(server, 'migrations', '001_init.sql')), 'the migrations beside them')
  for (const file of ['app.js', 'app.css'])
    assert.ok(existsSync(join(dist, 'console', file)), `dist/console/${file}`)
  assert.ok(readdirSync(join(dist, 'console', 'chunks')).length > 0, 'the pages as chunks')
  for (const file of readdirSync(server).filter((f) => f.endsWith('.js')))
    assert.not.match(readFileSync(join(server, file), 'utf8'), /from "tsx|import\("tsx/, file)
  const before = stamp()
  const again = spawnSync(process.execPath, ['scripts/build.ts', '--if-stale'], {
    cwd: root,
    encoding: 'utf8',
  })
  assert.is(again.status, 0, again.stderr)
  assert.is(again.stderr, '', 'nothing built')
  assert.is(stamp(), before)
})

build(
  'the built service :: /healthz and /readyz 200, workers from their bundles, the console from dist, SIGTERM exits 0',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devicecloud-build-'))
    const port = await freePort()
    const child = spawn(process.execPath, [...startFlags(), 'dist/server/main.js'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        HOST: '127.0.0.1',
        MQTT_PORT: '0',
        MQTT_WS_PORT: '0',
        DATA_DIR: dir,
        ADMIN_PASSWORD: 'admin-password-1',
        LOG_LEVEL: 'warn',
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
      assert.is(healthz!.status, 200)
      assert.equal(await healthz!.json(), { status: 'ok' })
      const readyz = await fetch(`${url}/readyz`)
      assert.is(readyz.status, 200, output)
      assert.is(((await readyz.json()) as { status: string }).status, 'ok')
      const threads = threadNames(child.pid!)
      for (const name of ['db-writer', 'db-reader', 'telemetry'])
        assert.ok(threads.includes(name), `${name} in ${threads.join(',')}`)
      const app = await fetch(`${url}/console/app.js`)
      assert.is(app.status, 200)
      assert.is(await app.text(), readFileSync(join(dist, 'console', 'app.js'), 'utf8'))
      child.kill('SIGTERM')
      assert.is(await exited, 0, output)
    } finally {
      child.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

build.run()
