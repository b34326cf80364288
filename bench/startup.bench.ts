/**
 * Start and idle of the built service as `npm start` runs it (`npm run build`, then `node <its flags>
 * dist/server/main.js` in a child process) over a DATA_DIR holding 10,000 devices: the time from spawn to the first
 * 200 of `/healthz` and of `/readyz` (each start a fresh process on the same files, the page cache warm), then, on
 * the last start, its RSS and thread count after 15 s and 45 s with no client connected (`/proc/<pid>/status`).
 * `BENCH_START=tsx` runs the sources through tsx instead (`npm run dev`'s way, and `npm start`'s before the build).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb } from '../store/libsql/db.ts'
import { insertDevices } from './_support/devices.ts'
import { procCpuUs } from './_support/proc-cpu.ts'
import { table } from './_support/runner.ts'
import { startFlags } from './_support/start-flags.ts'
import { freePort } from '../test/_support/ports.ts'

const DEVICES = 10_000
const STARTS = Number(process.env.BENCH_STARTS ?? 3)
const IDLE_S = [15, 45]
const MODE = process.env.BENCH_START === 'tsx' ? 'tsx' : 'built'
const root = join(import.meta.dirname, '..')
const EMAIL = 'b@b.io'
const PASSWORD = 'bench-password'

const entry =
  MODE === 'built' ? ['dist/server/main.js'] : ['--import', 'tsx', join(root, 'src/main.ts')]
/** `npm start`'s node flags, or others to compare (`BENCH_NODE_FLAGS='--max-semi-space-size=16'`; '' for none). */
const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? startFlags()

interface Running {
  child: ChildProcess
  url: string
  /** ms from spawn to the first 200 of /healthz, and of /readyz. */
  healthyMs: number
  readyMs: number
  /** The CPU time the service had used by then (all its threads), ms. */
  cpuMs: number
  stop(): Promise<void>
}

/** Whether something accepts TCP connections on the port now (a refused connect costs next to nothing). */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => (s.destroy(), resolve(true)))
    s.once('error', () => resolve(false))
  })

/**
 * Polls every 5 ms until `path` answers 200; the ms since `t0`. Until the port listens it only tries to connect:
 * a fetch every 5 ms took a good part of a core from the service starting beside it.
 */
async function until200(child: ChildProcess, port: number, path: string, t0: number) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited ${child.exitCode}`)
    const ok =
      (await listening(port)) &&
      (await fetch(`http://127.0.0.1:${port}${path}`).then(
        (r) => r.ok,
        () => false,
      ))
    if (ok) return performance.now() - t0
    if (performance.now() - t0 > 180_000) throw new Error(`${path}: no 200 within 180 s`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

async function start(data: string): Promise<Running> {
  const [port, mqtt, ws] = [await freePort(), await freePort(), await freePort()]
  const t0 = performance.now()
  const child = spawn(process.execPath, [...flags, ...entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: data,
      HOST: '127.0.0.1',
      PORT: String(port),
      MQTT_PORT: String(mqtt),
      MQTT_WS_PORT: String(ws),
      ADMIN_EMAIL: EMAIL,
      ADMIN_PASSWORD: PASSWORD,
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  let healthyMs: number, readyMs: number, cpuMs: number
  try {
    healthyMs = await until200(child, port, '/healthz', t0)
    readyMs = await until200(child, port, '/readyz', t0)
    cpuMs = procCpuUs(child.pid!) / 1000
  } catch (e) {
    child.kill('SIGKILL') // a service that did not start does not outlive the bench
    throw e
  }
  const exited = new Promise((r) => child.once('exit', r))
  return {
    child,
    url,
    healthyMs,
    readyMs,
    cpuMs,
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * The service's resident set now, MB: in all, its private part (anonymous: heaps, stacks, malloc) and its
 * file-backed part (the node binary and native modules as mapped: shared, and dropped first under pressure); and
 * its thread count.
 */
function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)![1])
  const mb = (name: string) => Math.round(field(name) / 1024)
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile'), threads: field('Threads') }
}

/** One start on an empty DATA_DIR (the schema and the first admin), a product, then the devices inserted. */
async function seed(data: string): Promise<number> {
  const svc = await start(data)
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(svc.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
    if (!r.ok) throw new Error(`POST ${path} answered ${r.status}`)
    return r.json() as Promise<Record<string, unknown>>
  }
  const { token, tenantID } = await post('/api/v1/login', { email: EMAIL, password: PASSWORD })
  const headers = { authorization: `Bearer ${String(token)}` }
  const product = await post(
    '/api/v1/products',
    { productName: 'bench', cloudProtocol: 1 },
    headers,
  )
  const db = await openDb({ url: `file:${data}/devicecloud.db` })
  await insertDevices(db, String(tenantID), Number(product.id), DEVICES)
  void db.close()
  await svc.stop()
  return svc.healthyMs
}

if (MODE === 'built') {
  const t0 = performance.now()
  execFileSync(process.execPath, [join(root, 'scripts/build.ts')], { cwd: root, stdio: 'inherit' })
  console.log(`npm run build: ${Math.round(performance.now() - t0)} ms`)
}
const data = mkdtempSync(join(tmpdir(), 'devicecloud-bench-startup-'))
try {
  const firstMs = await seed(data)
  const rows: Array<Array<string | number>> = []
  let last: Running | undefined
  for (let i = 0; i < STARTS; i++) {
    await last?.stop()
    last = await start(data)
    rows.push([i + 1, Math.round(last.healthyMs), Math.round(last.readyMs), Math.round(last.cpuMs)])
  }
  const pid = last!.child.pid!
  const idle: Array<Array<string | number>> = []
  const t0 = performance.now()
  for (const s of IDLE_S) {
    await new Promise((r) => setTimeout(r, s * 1000 - (performance.now() - t0)))
    const m = memory(pid)
    idle.push([`${s} s`, m.rss, m.anon, m.file, m.threads])
  }
  await last!.stop()
  const node = execFileSync(process.execPath, ['--version']).toString().trim()
  console.log(
    `\n${MODE === 'built' ? 'built (dist/server/main.js)' : 'sources through tsx'}, Node ${node}, ` +
      `${DEVICES.toLocaleString('en')} devices; first start on an empty DATA_DIR ${Math.round(firstMs)} ms\n`,
  )
  console.log(`node ${flags.join(' ')}`)
  console.log(
    table(['start', 'spawn to /healthz 200, ms', 'to /readyz 200, ms', 'CPU by then, ms'], rows),
  )
  console.log()
  console.log(table(['idle after ready', 'RSS, MB', 'private', 'file-backed', 'threads'], idle))
} finally {
  rmSync(data, { recursive: true, force: true })
}
