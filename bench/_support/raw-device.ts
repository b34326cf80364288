/**
 * A raw-socket MQTT 3.1.1 device of the load generators that listen (state-load.ts, ota-load.ts): CONNECT, the
 * CONNACK checked, one SUBSCRIBE (QoS 1); every PUBLISH it receives goes to `onPublish` (which acknowledges it).
 */
import { connect, type Socket } from 'node:net'
import { connackOk, connectPacket, frames, str, varint } from './mqtt-wire.ts'

/** The keep-alive of the listening devices, s (they are idle for minutes). */
const KEEPALIVE_S = 300

/** A SUBSCRIBE of `topic` at QoS 1 (packet id 1). */
export function subscribePacket(topic: string): Buffer {
  const body = Buffer.concat([Buffer.from([0, 1]), str(topic), Buffer.from([1])])
  return Buffer.concat([Buffer.from([0x82, ...varint(body.length)]), body])
}

/** Connects `d` to `mqttUrl` and subscribes to `topic`; resolves at its SUBACK (rejects after 120 s without). */
export function subscribedDevice(
  mqttUrl: string,
  d: { clientId: string; username: string; password: string },
  topic: string,
  onPublish: (sock: Socket, type: number, buf: Buffer, start: number, end: number) => void,
): Promise<Socket> {
  const subscribe = subscribePacket(topic)
  return new Promise((resolve, reject) => {
    const url = new URL(mqttUrl)
    const sock = connect({ host: url.hostname, port: Number(url.port || 1883), noDelay: true })
    let carry: Buffer | null = null
    const timer = setTimeout(() => reject(new Error(`${d.clientId}: no SUBACK in 120 s`)), 120_000)
    sock.on('data', (chunk: Buffer) => {
      carry = frames(carry, chunk, (type, buf, start, end) => {
        const kind = type >> 4
        if (kind === 2) {
          if (connackOk(buf, start, end - start)) sock.write(subscribe)
          else reject(new Error(`${d.clientId}: refused`))
        } else if (kind === 9) {
          clearTimeout(timer)
          resolve(sock)
        } else if (kind === 3) onPublish(sock, type, buf, start, end)
      })
    })
    sock.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    sock.write(connectPacket(d, KEEPALIVE_S))
  })
}
