/**
 * Device state load generator, its own process: connects `devices` raw-socket MQTT 3.1.1 clients, each subscribed
 * to its `state/delta`, and a `probe` of the first of them publishing QoS 1 uplinks open loop (PUBACK latency: what
 * ingest costs meanwhile). Then:
 * 1. the probe alone for `probeSeconds` (the baseline p99);
 * 2. a desired patch to the whole group (PATCH /groups/{id}/state) with the probe running: time from the request
 *    until every device received a delta of that desiredVersion, and the probe's p99 over that time;
 * 3. every device disconnected, the group patched again (its task done while they are away), then all of them
 *    reconnecting at once: time from the first CONNECT until every device received the pending delta.
 * Prints one JSON line. argv: <json | @file> = {mqtt, api, token, groupIntID, devices: [{clientId, username,
 * password}], probe: {devices, rate, topic, payload}, probeSeconds}
 */
import { connect, type Socket } from 'node:net'
import { connackOk, connectPacket, frames, str, varint } from './mqtt-wire.ts'
import { argJson } from './runner.ts'

interface Opts {
  mqtt: string
  api: string
  token: string
  groupIntID: number
  devices: Array<{ clientId: string; username: string; password: string }>
  probe: { devices: number; rate: number; topic: string; payload: string }
  probeSeconds: number
}

const o = argJson<Opts>(process.argv[2]!)
const KEEPALIVE_S = 300
/** Per device: the highest desiredVersion received, and when each version was first reached. */
const reached = o.devices.map(() => new Map<number, number>())
let onDelta: (() => void) | undefined

const SUBSCRIBE = (() => {
  const body = Buffer.concat([Buffer.from([0, 1]), str('state/delta'), Buffer.from([1])])
  return Buffer.concat([Buffer.from([0x82, ...varint(body.length)]), body])
})()

/** In-flight probe publishes by connection and packet id: when each was sent. */
const probeSent: Array<Map<number, number>> = []
let latencies: number[] | undefined

/** One incoming PUBLISH: a delta (its desiredVersion noted), PUBACKed when QoS 1. */
function onPublish(sock: Socket, i: number, type: number, buf: Buffer, start: number, end: number) {
  const qos = (type >> 1) & 3
  const topicEnd = start + 2 + buf.readUInt16BE(start)
  const payloadAt = qos ? topicEnd + 2 : topicEnd
  if (qos === 1) sock.write(Buffer.from([0x40, 2, buf[topicEnd]!, buf[topicEnd + 1]!]))
  if (!buf.toString('latin1', topicEnd - 11, topicEnd).endsWith('state/delta')) return
  const { desiredVersion } = JSON.parse(buf.toString('utf8', payloadAt, end)) as {
    desiredVersion: number
  }
  if (!reached[i]!.has(desiredVersion)) reached[i]!.set(desiredVersion, performance.now())
  onDelta?.()
}

/** One device: CONNECT, CONNACK checked, SUBSCRIBE state/delta; resolves at its SUBACK. */
function open(i: number): Promise<Socket> {
  const d = o.devices[i]!
  return new Promise((resolve, reject) => {
    const url = new URL(o.mqtt)
    const sock = connect({ host: url.hostname, port: Number(url.port || 1883), noDelay: true })
    let carry: Buffer | null = null
    const timer = setTimeout(() => reject(new Error(`${d.clientId}: no SUBACK in 120 s`)), 120_000)
    sock.on('data', (chunk: Buffer) => {
      carry = frames(carry, chunk, (type, buf, start, end) => {
        const kind = type >> 4
        if (kind === 2) {
          if (!connackOk(buf, start, end - start)) reject(new Error(`${d.clientId}: refused`))
          else sock.write(SUBSCRIBE)
        } else if (kind === 9) {
          clearTimeout(timer)
          resolve(sock)
        } else if (kind === 3) onPublish(sock, i, type, buf, start, end)
        else if (kind === 4) {
          const id = buf.readUInt16BE(start)
          const at = probeSent[i]?.get(id)
          if (at !== undefined) {
            probeSent[i]!.delete(id)
            latencies?.push(performance.now() - at)
          }
        }
      })
    })
    sock.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    sock.write(connectPacket(d, KEEPALIVE_S))
  })
}

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

/** A QoS 1 PUBLISH of the probe's payload on its relative topic, with packet id `id`. */
function probePacket(id: number): Buffer {
  const t = str(o.probe.topic)
  const p = Buffer.from(o.probe.payload)
  const head = Buffer.from([0x32, ...varint(t.length + 2 + p.length)])
  return Buffer.concat([head, t, Buffer.from([id >> 8, id & 0xff]), p])
}

/**
 * Runs the probe (open loop at its rate, round robin over its devices) until `stop()`: what it sent, and the PUBACK
 * latencies (ms) of those acknowledged.
 */
function runProbe(sockets: Socket[]) {
  const samples: number[] = []
  latencies = samples
  const ids = new Array<number>(o.probe.devices).fill(0)
  const t0 = performance.now()
  let sent = 0
  const tick = setInterval(() => {
    const due = Math.floor(((performance.now() - t0) / 1000) * o.probe.rate)
    for (; sent < due; sent++) {
      const i = sent % o.probe.devices
      const id = (ids[i] = (ids[i]! % 65535) + 1)
      ;(probeSent[i] ??= new Map()).set(id, performance.now())
      sockets[i]!.write(probePacket(id))
    }
  }, 5)
  return {
    /** Stops sending; resolves once the last PUBACKs had a second to come. */
    stop: async () => {
      clearInterval(tick)
      await new Promise((r) => setTimeout(r, 1000))
      latencies = undefined
      return { sent, samples }
    },
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return Number((s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0).toFixed(1))
}

async function api(method: string, path: string, body?: unknown) {
  const r = await fetch(o.api + path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return (await r.json()) as Record<string, unknown>
}

/** Resolves once every device reached `version` (or after `ms`); how many did. */
function allReached(version: number, ms: number): Promise<number> {
  const count = () => reached.filter((m) => m.has(version)).length
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

/** Waits until a task is done; ms it took from `t0`. */
async function taskDone(statusUrl: string, t0: number): Promise<number> {
  for (;;) {
    const s = await api('GET', `/api/v1${statusUrl}`)
    if (Number(s.status) >= 3) return Math.round(performance.now() - t0)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const cpuOf = (from: NodeJS.CpuUsage, ms: number) => {
  const c = process.cpuUsage(from)
  return Math.round((100 * (c.user + c.system)) / 1000 / ms)
}

// connect, then the probe alone
const c0 = performance.now()
let sockets = await connectAll()
const connectMs = Math.round(performance.now() - c0)
await new Promise((r) => setTimeout(r, 2000))
let probe = runProbe(sockets)
await new Promise((r) => setTimeout(r, o.probeSeconds * 1000))
const baseline = await probe.stop()

// 1. a patch to the group, with the probe running
probe = runProbe(sockets)
const p0 = performance.now()
const cpu1 = process.cpuUsage()
const started = (await api('PATCH', `/api/v1/groups/${o.groupIntID}/state`, {
  desired: { phase: 1 },
})) as { statusUrl: string }
const answeredMs = Math.round(performance.now() - p0)
const received1 = await allReached(1, 120_000)
const patchMs = Math.round(performance.now() - p0)
const patchCpu = cpuOf(cpu1, patchMs)
// the probe runs as long during the patch as alone, or the whole patch when that is longer
await new Promise((r) => setTimeout(r, Math.max(0, p0 + o.probeSeconds * 1000 - performance.now())))
const during = await probe.stop()
const taskMs = await taskDone(started.statusUrl, p0)

// 2. away, patched again, then all back at once
for (const s of sockets) s.end(Buffer.from([0xe0, 0x00]))
await new Promise((r) => setTimeout(r, 2000))
const p2 = performance.now()
const again = (await api('PATCH', `/api/v1/groups/${o.groupIntID}/state`, {
  desired: { phase: 2 },
})) as { statusUrl: string }
const offlineTaskMs = await taskDone(again.statusUrl, p2)
const r0 = performance.now()
const cpu2 = process.cpuUsage()
sockets = await connectAll()
const reconnectConnectMs = Math.round(performance.now() - r0)
const received2 = await allReached(2, 120_000)
const reconnectMs = Math.round(performance.now() - r0)
const reconnectCpu = cpuOf(cpu2, reconnectMs)

console.log(
  JSON.stringify({
    devices: o.devices.length,
    connectMs,
    probe: {
      rate: o.probe.rate,
      devices: o.probe.devices,
      baseline: {
        sent: baseline.sent,
        acked: baseline.samples.length,
        p50: pct(baseline.samples, 0.5),
        p99: pct(baseline.samples, 0.99),
      },
      during: {
        sent: during.sent,
        acked: during.samples.length,
        p50: pct(during.samples, 0.5),
        p99: pct(during.samples, 0.99),
      },
    },
    patch: { answeredMs, allMs: patchMs, received: received1, taskMs, loadCpu: patchCpu },
    reconnect: {
      offlineTaskMs,
      connectMs: reconnectConnectMs,
      allMs: reconnectMs,
      received: received2,
      loadCpu: reconnectCpu,
    },
  }),
)
for (const s of sockets) s.end(Buffer.from([0xe0, 0x00]))
process.exit(0)
