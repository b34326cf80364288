/**
 * Two builds in the same run: the device list and detail of this checkout against an earlier commit
 * (`BENCH_BASE_REF`, default the last commit before the typed-records rework of the metadata store), each
 * a service in its own process over its own 10,000 devices, loaded in alternation (base, this, base, this, ...)
 * so that both see the same machine. The spread of one build's rounds is the run-to-run noise a difference
 * must exceed. Each figure carries the service's CPU (% of one core) and the load generator's.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb } from '../store/libsql/db.ts'
import { insertDevices } from './_support/devices.ts'
import { load, table, type LoadResult } from './_support/runner.ts'
import { startFlags } from './_support/start-flags.ts'
import { freePort } from '../test/_support/ports.ts'

const DEVICES = 10_000
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const BASE_REF = process.env.BENCH_BASE_REF ?? 'a4500fe'
const root = join(import.meta.dirname, '..')
const EMAIL = 'b@b.io'
const PASSWORD = 'bench-password'

/** The service's CPU time so far (user + system), in seconds, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

interface Build {
  name: string
  child: ChildProcess
  url: string
  headers: Record<string, string>
  detailPaths: string[]
  close(): void
}

/** Starts the service of the tree at `dir` in its own process over a fresh data directory, with 10,000 devices. */
async function startBuild(name: string, dir: string): Promise<Build> {
  const data = mkdtempSync(join(tmpdir(), 'devicecloud-bench-build-'))
  const [port, mqtt, ws] = [await freePort(), await freePort(), await freePort()]
  // both builds with this checkout's `npm start` flags: the builds differ in their code only
  const child = spawn(process.execPath, [...startFlags(), '--import', 'tsx', 'src/main.ts'], {
    cwd: dir,
    env: {
      ...process.env,
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
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${name}: the service exited ${child.exitCode}`)
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    if (i > 300) throw new Error(`${name}: the service did not start`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
    if (!r.ok) throw new Error(`${name}: POST ${path} answered ${r.status}`)
    return r.json() as Promise<Record<string, unknown>>
  }
  const { token, tenantID } = await post('/api/v1/login', { email: EMAIL, password: PASSWORD })
  const headers = { authorization: `Bearer ${String(token)}` }
  const product = await post(
    '/api/v1/products',
    { productName: 'bench', cloudProtocol: 1 },
    headers,
  )
  // the devices in multi-row inserts, on the build's own schema (its own migrations directory)
  const db = await openDb(
    { url: `file:${data}/devicecloud.db` },
    join(dir, 'store', 'libsql', 'migrations'),
  )
  await insertDevices(db, String(tenantID), Number(product.id), DEVICES)

  const ids = (
    await db.all("SELECT id FROM devices WHERE kind = 'device' ORDER BY id LIMIT 1000 OFFSET 4000")
  ).map((r) => Number(r.id))
  void db.close()
  return {
    name,
    child,
    url,
    headers,
    detailPaths: ids.map((id) => `/api/v1/devices/${id}`),
    close() {
      child.kill('SIGTERM')
      rmSync(data, { recursive: true, force: true })
    },
  }
}

/** The base commit's tree, extracted (no worktree, nothing written to this repository), with these node_modules. */
function extract(ref: string): string | undefined {
  try {
    execFileSync('git', ['cat-file', '-e', `${ref}^{commit}`], { cwd: root, stdio: 'ignore' })
  } catch {
    return undefined
  }
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-bench-base-'))
  mkdirSync(dir, { recursive: true })
  execFileSync(
    'sh',
    ['-c', `git archive ${JSON.stringify(ref)} | tar -x -C ${JSON.stringify(dir)}`],
    {
      cwd: root,
    },
  )
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

const baseDir = extract(BASE_REF)
if (!baseDir) {
  console.log(`BENCH_BASE_REF ${BASE_REF} is not a commit of this clone: nothing to compare`)
  process.exit(0)
}
const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim()
const builds = [
  await startBuild(`base ${BASE_REF}`, baseDir),
  await startBuild(`this ${head}`, root),
]
const listPath = '/api/v1/devices?_page=3&_limit=10'
for (const b of builds) {
  const r = await fetch(b.url + listPath, { headers: b.headers })
  const body = await r.text()
  if (r.status !== 200 || !body.includes('"items"'))
    throw new Error(`${b.name}: unexpected list answer ${r.status}`)
}

type Figure = LoadResult & { serviceCpu: number }
const figures = new Map<string, Figure[]>()
for (let round = 0; round < ROUNDS; round++) {
  for (const route of ['list', 'detail'] as const) {
    // alternate which build goes first, so neither always runs on a machine the other just warmed
    const order = round % 2 === 0 ? builds : [...builds].reverse()
    for (const b of order) {
      const pid = b.child.pid!
      const cpu0 = cpuSeconds(pid)
      const t0 = performance.now()
      const r = await load({
        url: b.url,
        paths: route === 'list' ? [listPath] : b.detailPaths,
        connections: 10,
        seconds: SECONDS,
        headers: b.headers,
      })
      const wall = (performance.now() - t0) / 1000
      const serviceCpu = Math.round(((cpuSeconds(pid) - cpu0) / wall) * 100)
      const key = `${route} ${b.name}`
      figures.set(key, [...(figures.get(key) ?? []), { ...r, serviceCpu }])
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rows: Array<Array<string | number>> = []
for (const route of ['list', 'detail'] as const) {
  const [base, mine] = builds.map((b) => figures.get(`${route} ${b.name}`)!)
  const baseMedian = median(base!.map((f) => f.rps))
  for (const [b, fs] of [
    [builds[0]!, base!],
    [builds[1]!, mine!],
  ] as const) {
    const rps = fs.map((f) => f.rps)
    const spread = ((Math.max(...rps) - Math.min(...rps)) / median(rps)) * 100
    rows.push([
      route,
      b.name,
      rps.join(' / '),
      median(rps),
      `${spread.toFixed(0)}%`,
      `${(((median(rps) - baseMedian) / baseMedian) * 100).toFixed(1)}%`,
      median(fs.map((f) => f.p99)).toFixed(2),
      median(fs.map((f) => f.serviceCpu)),
      median(fs.map((f) => f.cpu)),
    ])
  }
}
console.log(
  `\n10,000 devices, 10 connections, ${SECONDS} s a run after 1 s of warm-up, ${ROUNDS} rounds alternating the builds\n`,
)
console.log(
  table(
    [
      'route',
      'build',
      'req/s each round',
      'median',
      'spread (noise)',
      'against base',
      'p99 ms',
      'service CPU %',
      'load CPU %',
    ],
    rows,
  ),
)
for (const b of builds) b.close()
rmSync(baseDir, { recursive: true, force: true })
process.exit(0)
