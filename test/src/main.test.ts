import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, existsSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commandLine, descendants } from '../_support/procs.ts'

const root = join(import.meta.dirname, '../..')

/** Starts `npm start`'s entry point as its own process; resolves with its output and a way to stop it. */
function start(env: Record<string, string>) {
  return watch(
    spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
}

/** Output, exit and an output matcher of a started process. */
function watch(
  child: ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream },
) {
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const until = async (re: RegExp, ms = 20_000) => {
    const end = Date.now() + ms
    while (!re.test(output) && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
    return re.exec(output)
  }
  return { child, exited, until, output: () => output }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Resolves with the error code of a TCP connect to the port ('connected' when it was accepted). */
const dial = (port: number) =>
  new Promise<string>((resolve) => {
    const s = connect({ host: '127.0.0.1', port })
    s.once('connect', () => {
      s.destroy()
      resolve('connected')
    })
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
  })

/** The settings of a service on free ports over `dir`/data, `extra` added. */
const onFreePorts = (dir: string, extra: Record<string, string> = {}) => ({
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: join(dir, 'data'),
  MQTT_PORT: '0',
  MQTT_WS_PORT: '0',
  ...extra,
})

const main = suite('process')

main('fresh data dir :: serves, creates schema and first admin, SIGTERM exits 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-main-'))
  const p = start(onFreePorts(dir))
  const m = await p.until(/API on (http:\/\/[\d.:]+)/)
  assert.ok(m, p.output())
  // stdout is a pipe: the lines after the first may arrive in a later chunk
  assert.ok(await p.until(/generated password, shown once: \S{16}/), p.output())
  const health = await fetch(`${m[1]}/health`)
  assert.is(health.status, 200)
  assert.ok(existsSync(join(dir, 'data', 'devicecloud.db')))
  const started = JSON.parse((await p.until(/\{[^\n]*"service started"[^\n]*\}/))![0])
  assert.equal(
    [started.level, started.component, started.httpPort > 0, started.mqttPort > 0],
    ['info', 'service', true, true],
  )
  p.child.kill('SIGTERM')
  assert.is(await p.exited, 0)
  const lines = p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
  assert.equal(lines.at(-1).msg, 'shutdown complete', 'the last log line of a clean stop')
  // started again on the same data with ADMIN_PASSWORD: it says the password is not used
  const again = start(onFreePorts(dir, { ADMIN_PASSWORD: 'admin-password-1' }))
  assert.ok(await again.until(/ADMIN_PASSWORD is ignored: users exist already/), again.output())
  // the warning comes during start-up: wait for the signal handlers before stopping it
  assert.ok(await again.until(/API on http/), again.output())
  again.child.kill('SIGTERM')
  assert.is(await again.exited, 0)
  rmSync(dir, { recursive: true, force: true })
})

/** `npm start` exactly as the README says, on free ports over a temp DATA_DIR (`detached`: its own process group). */
function npmStart(dir: string, detached = false) {
  return watch(
    spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['start'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...onFreePorts(dir, { ADMIN_PASSWORD: 'admin-password-1' }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached,
    }),
  )
}

/** The HTTP, MQTT and WebSocket ports a started service printed. */
async function portsOf(p: ReturnType<typeof watch>): Promise<number[]> {
  const api = await p.until(/API on http:\/\/127\.0\.0\.1:(\d+)/)
  const mqtt = await p.until(/MQTT on mqtt:\/\/127\.0\.0\.1:(\d+), ws:\/\/127\.0\.0\.1:(\d+)\/mqtt/)
  assert.ok(api && mqtt, p.output())
  return [api[1], mqtt[1], mqtt[2]].map(Number)
}

/** Resolves once none of `pids` is alive (at most 5 s); returns those still alive. */
async function gone(pids: number[]): Promise<number[]> {
  const deadline = Date.now() + 5_000
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  return pids.filter(alive)
}

const REFUSED = ['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']

/** A service started by `how` over a fresh temp DATA_DIR, once it printed its ports. */
async function launched(how: (dir: string) => ReturnType<typeof watch>) {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-main-'))
  const p = how(dir)
  return { dir, p, ports: await portsOf(p) }
}

/** Asserts that every port of a stopped service refuses connections, then removes its data dir. */
async function assertClosed(ports: number[], dir: string) {
  assert.equal(await Promise.all(ports.map(dial)), REFUSED)
  rmSync(dir, { recursive: true, force: true })
}

main(
  'npm start, then SIGTERM to npm :: one node process, exit 0, every port closed, no process left',
  async () => {
    const { dir, p, ports } = await launched(npmStart)
    assert.equal(await Promise.all(ports.map(dial)), ['connected', 'connected', 'connected'])
    const tree = descendants(p.child.pid!).map((pid) => [pid, commandLine(pid)] as const)
    assert.is(tree.length, 1, `one process under npm: ${JSON.stringify(tree)}`)
    assert.match(
      tree[0]![1],
      /^node --max-semi-space-size=128 --no-allocation-site-pretenuring --heap-growing-percent=100 --expose-gc dist\/server\/main\.js$/,
    )
    p.child.kill('SIGTERM')
    assert.is(await p.exited, 0, p.output())
    assert.match(p.output(), /SIGTERM: shutting down/)
    assert.equal(await gone(tree.map(([pid]) => pid)), [], 'no process of it remains')
    await assertClosed(ports, dir)
  },
)

main(
  'Ctrl-C (SIGINT to the process group, twice to node) :: one clean shutdown, exit 0',
  async () => {
    const { dir, p, ports } = await launched((d) => npmStart(d, true))
    const pids = [p.child.pid!, ...descendants(p.child.pid!)]
    process.kill(-p.child.pid!, 'SIGINT') // as a terminal does: npm forwards it too
    assert.is(await p.exited, 0, p.output())
    assert.is(p.output().match(/SIGINT: shutting down/g)?.length, 1, p.output())
    assert.not.match(p.output(), /again: exiting now/)
    assert.equal(await gone(pids), [])
    await assertClosed(ports, dir)
  },
)

/** Logs in and creates a device; answers the API's URL and the device's Basic credentials. */
async function deviceOf(port: number) {
  const url = `http://127.0.0.1:${port}/api/v1`
  const json = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    })
    assert.is(res.status, 201, await res.clone().text())
    return (await res.json()) as Record<string, string>
  }
  const { token } = await json('/login', {
    email: 'admin@devicecloud.local',
    password: 'admin-password-1',
  })
  const { productID } = await json('/products', { productName: 'P', cloudProtocol: 1 }, token)
  const d = await json(
    '/devices',
    { productID, deviceName: 'd', deviceType: 1, upLinkSystem: 1, cloudProtocol: 1, authType: 1 },
    token,
  )
  return { url, basic: Buffer.from(`${d.deviceUsername}:${d.token}`).toString('base64') }
}

/**
 * Holds the HTTP server open: a request whose body never comes (the server waits for it until
 * HTTP_REQUEST_TIMEOUT_MS, 30 s by default).
 */
async function holdOpen(port: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@devicecloud.local', password: 'admin-password-1' }),
  })
  const { token } = (await res.json()) as { token: string }
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write(
    `POST /api/v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
  )
  await new Promise((r) => setTimeout(r, 300)) // the request is in
}

main('a device long poll open :: SIGTERM ends it with an answer, exit 0 at once', async () => {
  const { dir, p, ports } = await launched(npmStart)
  const { url, basic } = await deviceOf(ports[0]!)
  const poll = fetch(`${url}/ingest/commands?wait=30`, {
    headers: { authorization: `Basic ${basic}` },
  })
  await new Promise((r) => setTimeout(r, 300)) // the poll is waiting
  const t0 = Date.now()
  p.child.kill('SIGTERM')
  const answer = await poll
  assert.is(answer.status, 200)
  assert.equal(await answer.json(), { items: [] })
  assert.is(await p.exited, 0, p.output())
  assert.ok(Date.now() - t0 < 5_000, `${Date.now() - t0} ms`)
  await assertClosed(ports, dir)
})

main(
  'a shutdown held up (a request whose body never comes) :: exit 1 after 10 s, ports closed',
  async () => {
    const { dir, p, ports } = await launched((d) =>
      start(onFreePorts(d, { ADMIN_PASSWORD: 'admin-password-1' })),
    )
    await holdOpen(ports[0]!)
    const t0 = Date.now()
    p.child.kill('SIGTERM')
    assert.is(await p.exited, 1, p.output())
    const took = Date.now() - t0
    assert.ok(took >= 9_500 && took < 13_000, `${took} ms`)
    assert.match(p.output(), /shutdown took over 10 s: exiting/)
    await assertClosed(ports, dir)
  },
)

main('a second SIGTERM during a held-up shutdown :: exit 1 at once', async () => {
  const { dir, p, ports } = await launched(npmStart)
  await holdOpen(ports[0]!)
  const pids = descendants(p.child.pid!)
  p.child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 1_500))
  assert.ok(pids.every(alive), 'still shutting down')
  const t0 = Date.now()
  p.child.kill('SIGTERM')
  await p.exited
  assert.ok(Date.now() - t0 < 2_000, `${Date.now() - t0} ms`)
  assert.match(p.output(), /SIGTERM again: exiting now/)
  assert.equal(await gone(pids), [])
  await assertClosed(ports, dir)
})

main('bad settings :: exit 1 naming every bad key', async () => {
  const p = start({
    PORT: 'eighty',
    TIMEZONE: 'Nowhere/City',
    DB_READERS: '0',
    DISK_MIN_FREE_MB: '-1',
    RETENTION_EVENTS_DAYS: 'soon',
  })
  assert.is(await p.exited, 1)
  for (const key of ['PORT', 'TIMEZONE', 'DB_READERS', 'DISK_MIN_FREE_MB', 'RETENTION_EVENTS_DAYS'])
    assert.match(p.output(), new RegExp(key))
})

main.run()
