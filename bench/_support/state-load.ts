/**
 * Device state load generator, its own process: connects `devices` raw-socket MQTT 3.1.1 clients, each subscribed
 * to its `state/delta` (noting the desiredVersion of every delta it receives), prints `{"connectMs"}` and then
 * answers commands read from its standard input, one JSON line each:
 * - `patch <n>`: a desired patch `{phase: n}` to the group; `{answeredMs, allMs, received, taskMs, loadCpu}`: time
 *   from the request until every device received a delta of desiredVersion `n`;
 * - `away <n>`: every device disconnects, the group is patched (`{phase: n}`, its task done while they are away),
 *   then all reconnect at once; `{offlineTaskMs, connectMs, allMs, received, loadCpu}`: time from the first CONNECT
 *   until every device received the pending delta;
 * - `exit`.
 * argv: <json | @file> = {mqtt, api, token, groupIntID, devices: [{clientId, username, password}]}
 */
import type { Socket } from 'node:net'
import { createInterface } from 'node:readline'
import { subscribedDevice } from './raw-device.ts'
import { argJson } from './runner.ts'

interface Opts {
  mqtt: string
  api: string
  token: string
  groupIntID: number
  devices: Array<{ clientId: string; username: string; password: string }>
}

const o = argJson<Opts>(process.argv[2]!)
/** Per device: when each desiredVersion was first received; per desiredVersion: how many devices have it. */
const reached = o.devices.map(() => new Map<number, number>())
const devicesAt = new Map<number, number>()
let onDelta: (() => void) | undefined

/** One incoming PUBLISH: its PUBACK when QoS 1; a delta's desiredVersion noted. */
function onPublish(sock: Socket, i: number, type: number, buf: Buffer, start: number, end: number) {
  const qos = (type >> 1) & 3
  const topicEnd = start + 2 + buf.readUInt16BE(start)
  const payloadAt = qos ? topicEnd + 2 : topicEnd
  if (qos === 1) sock.write(Buffer.from([0x40, 2, buf[topicEnd]!, buf[topicEnd + 1]!]))
  if (buf.toString('latin1', topicEnd - 11, topicEnd) !== 'state/delta') return
  const { desiredVersion } = JSON.parse(buf.toString('utf8', payloadAt, end)) as {
    desiredVersion: number
  }
  if (reached[i]!.has(desiredVersion)) return
  reached[i]!.set(desiredVersion, performance.now())
  devicesAt.set(desiredVersion, (devicesAt.get(desiredVersion) ?? 0) + 1)
  onDelta?.()
}

/** One device, subscribed to state/delta; resolves at its SUBACK. */
const open = (i: number): Promise<Socket> =>
  subscribedDevice(o.mqtt, o.devices[i]!, 'state/delta', (sock, type, buf, start, end) =>
    onPublish(sock, i, type, buf, start, end),
  )

/** Connects every device, 500 at a time; the sockets in device order. */
async function connectAll(): Promise<Socket[]> {
  const out: Socket[] = []
  for (let i = 0; i < o.devices.length; i += 500)
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(500, o.devices.length - i) }, (_, k) => open(i + k)),
      )),
    )
  return out
}

async function api(method: string, path: string, body?: unknown) {
  const r = await fetch(o.api + path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return (await r.json()) as Record<string, unknown>
}

/** Resolves once every device reached desiredVersion `version` (or after `ms`); how many did. */
function allReached(version: number, ms: number): Promise<number> {
  const count = () => devicesAt.get(version) ?? 0
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      onDelta = undefined
      resolve(count())
    }, ms)
    onDelta = () => {
      if (count() < o.devices.length) return
      clearTimeout(timer)
      onDelta = undefined
      resolve(o.devices.length)
    }
    onDelta()
  })
}

/** Waits until a task is done; ms from `t0`. */
async function taskDone(statusUrl: string, t0: number): Promise<number> {
  for (;;) {
    const s = await api('GET', `/api/v1${statusUrl}`)
    if (Number(s.status) >= 3) return Math.round(performance.now() - t0)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const patchGroup = async (phase: number) =>
  (await api('PATCH', `/api/v1/groups/${o.groupIntID}/state`, { desired: { phase } })) as {
    statusUrl: string
  }

/** This process's CPU since `from` over `ms`, % of one core. */
const cpuOf = (from: NodeJS.CpuUsage, ms: number) => {
  const c = process.cpuUsage(from)
  return Math.round((100 * (c.user + c.system)) / 1000 / ms)
}

let sockets: Socket[] = []

async function patch(n: number) {
  const t0 = performance.now()
  const cpu = process.cpuUsage()
  const started = await patchGroup(n)
  const answeredMs = Math.round(performance.now() - t0)
  const received = await allReached(n, 120_000)
  const allMs = Math.round(performance.now() - t0)
  const loadCpu = cpuOf(cpu, allMs)
  return { answeredMs, allMs, received, taskMs: await taskDone(started.statusUrl, t0), loadCpu }
}

async function away(n: number) {
  for (const s of sockets) s.end(Buffer.from([0xe0, 0x00])) // DISCONNECT
  await new Promise((r) => setTimeout(r, 2000))
  const p0 = performance.now()
  const offlineTaskMs = await taskDone((await patchGroup(n)).statusUrl, p0)
  const t0 = performance.now()
  const cpu = process.cpuUsage()
  sockets = await connectAll()
  const connectMs = Math.round(performance.now() - t0)
  const received = await allReached(n, 120_000)
  const allMs = Math.round(performance.now() - t0)
  return { offlineTaskMs, connectMs, allMs, received, loadCpu: cpuOf(cpu, allMs) }
}

const c0 = performance.now()
sockets = await connectAll()
console.log(JSON.stringify({ connectMs: Math.round(performance.now() - c0) }))
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, arg] = line.trim().split(/\s+/)
  if (cmd === 'patch') console.log(JSON.stringify(await patch(Number(arg))))
  else if (cmd === 'away') console.log(JSON.stringify(await away(Number(arg))))
  else break
}
for (const s of sockets) s.end(Buffer.from([0xe0, 0x00]))
process.exit(0)
