/**
 * Firmware rollout load generator, its own process: connects `devices` raw-socket MQTT 3.1.1 clients, each subscribed
 * to its `ota/notify`, notes the time (epoch ms) each notification arrives and answers it at once with
 * `ota/progress` `{"rolloutID", "status": "updated"}` (QoS 1), as a device that applies an update instantly would.
 * Prints `{"connectMs"}`, then answers commands read from its standard input, one JSON line each:
 * - `times`: `{"times": [...], "cpuMs"}`: the arrival times so far, in order, and this process's CPU since it
 *   connected;
 * - `exit`.
 * argv: <json | @file> = {mqtt, devices: [{clientId, username, password}]}
 */
import type { Socket } from 'node:net'
import { createInterface } from 'node:readline'
import { str, varint } from './mqtt-wire.ts'
import { subscribedDevice } from './raw-device.ts'
import { argJson } from './runner.ts'

interface Opts {
  mqtt: string
  devices: Array<{ clientId: string; username: string; password: string }>
}

const o = argJson<Opts>(process.argv[2]!)
const times: number[] = []
let packetId = 0

/** A QoS 1 PUBLISH of `payload` to `topic`. */
function publish(topic: string, payload: string): Buffer {
  packetId = (packetId % 65_535) + 1
  const body = Buffer.concat([
    str(topic),
    Buffer.from([packetId >> 8, packetId & 0xff]),
    Buffer.from(payload),
  ])
  return Buffer.concat([Buffer.from([0x32, ...varint(body.length)]), body])
}

/** One incoming PUBLISH: its PUBACK; a notification noted and answered `updated`. */
function onPublish(sock: Socket, type: number, buf: Buffer, start: number, end: number) {
  const qos = (type >> 1) & 3
  const topicEnd = start + 2 + buf.readUInt16BE(start)
  const payloadAt = qos ? topicEnd + 2 : topicEnd
  if (qos === 1) sock.write(Buffer.from([0x40, 2, buf[topicEnd]!, buf[topicEnd + 1]!]))
  if (buf.toString('latin1', topicEnd - 10, topicEnd) !== 'ota/notify') return
  times.push(Date.now())
  const { rolloutID } = JSON.parse(buf.toString('utf8', payloadAt, end)) as { rolloutID: string }
  sock.write(publish('ota/progress', JSON.stringify({ rolloutID, status: 'updated' })))
}

/** One device, subscribed to ota/notify; resolves at its SUBACK. */
const open = (i: number): Promise<Socket> =>
  subscribedDevice(o.mqtt, o.devices[i]!, 'ota/notify', (sock, type, buf, start, end) =>
    onPublish(sock, type, buf, start, end),
  )

const c0 = performance.now()
const sockets: Socket[] = []
for (let i = 0; i < o.devices.length; i += 500)
  sockets.push(
    ...(await Promise.all(
      Array.from({ length: Math.min(500, o.devices.length - i) }, (_, k) => open(i + k)),
    )),
  )
const cpu0 = process.cpuUsage()
console.log(JSON.stringify({ connectMs: Math.round(performance.now() - c0) }))
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'times') break
  const c = process.cpuUsage(cpu0)
  console.log(JSON.stringify({ times, cpuMs: Math.round((c.user + c.system) / 1000) }))
}
for (const s of sockets) s.end(Buffer.from([0xe0, 0x00]))
process.exit(0)
