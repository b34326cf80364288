/**
 * A device that takes firmware updates (MQTT.js), as the tests of rollouts drive it: it subscribes to `ota/notify`
 * and `ota/cancel`, and on a notification downloads the package over HTTP (whole, or cut off once and resumed with
 * `Range`) or over MQTT chunks, checks its SHA-256 and reports each step on `ota/progress`, or does what its
 * behaviour says instead (fail the checksum, never answer).
 */
import { createHash } from 'node:crypto'
import type { MqttClient } from 'mqtt'
import type { TestService } from '../_support/service.ts'
import { connect, credentials, mqttUrl, sleep, type DeviceCredentials } from './_mqtt.ts'

export type Behaviour = 'http' | 'http-resume' | 'mqtt' | 'bad-checksum' | 'silent'

export interface Notify {
  rolloutID: string
  firmwareID: string
  version: string
  size: number
  sha256: string
  url: string
  attempt: number
}

export interface OtaDevice {
  client: MqttClient
  notifies: Notify[]
  cancels: Array<{ rolloutID: string }>
  /** Every status reported, in order. */
  reported: string[]
  /** Bytes received over HTTP (both requests of a resumed download). */
  httpRequests: Array<{ status: number; range: string | null }>
  behaviour: Behaviour
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const basic = (d: DeviceCredentials) =>
  `Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString('base64')}`

async function httpDownload(d: OtaDevice, creds: DeviceCredentials, n: Notify): Promise<Buffer> {
  const headers = { authorization: basic(creds) }
  if (d.behaviour !== 'http-resume') {
    const res = await fetch(n.url, { headers })
    d.httpRequests.push({ status: res.status, range: null })
    return Buffer.from(await res.arrayBuffer())
  }
  // the connection drops after the first part: read a part, drop it, resume from where it stopped
  const res = await fetch(n.url, { headers })
  const reader = res.body!.getReader()
  const parts: Uint8Array[] = []
  let got = 0
  while (got < n.size / 3) {
    const { value, done } = await reader.read()
    if (done) break
    parts.push(value)
    got += value.length
  }
  await reader.cancel()
  d.httpRequests.push({ status: res.status, range: null })
  const range = `bytes=${got}-`
  const rest = await fetch(n.url, { headers: { ...headers, range } })
  d.httpRequests.push({ status: rest.status, range })
  parts.push(new Uint8Array(await rest.arrayBuffer()))
  return Buffer.concat(parts)
}

async function mqttDownload(d: OtaDevice, n: Notify): Promise<Buffer> {
  const CHUNK = 65_536
  const chunks = new Map<number, Buffer>()
  d.client.on('message', (topic, payload) => {
    const m = /ota\/chunk\/(\d+)$/.exec(topic)
    if (m) chunks.set(Number(m[1]), payload)
  })
  for (let offset = 0; offset < n.size; offset += CHUNK) {
    await d.client.publishAsync(
      'ota/chunk/get',
      JSON.stringify({ firmwareID: n.firmwareID, offset, length: CHUNK }),
      { qos: 1 },
    )
    for (let i = 0; i < 200 && !chunks.has(offset); i++) await sleep(10)
  }
  return Buffer.concat([...chunks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b))
}

const report = (d: OtaDevice, body: Record<string, unknown>) => {
  d.reported.push(String(body.status))
  return d.client.publishAsync('ota/progress', JSON.stringify(body), { qos: 1 })
}

/** Runs one update as the device's behaviour says. */
async function update(d: OtaDevice, creds: DeviceCredentials, n: Notify) {
  if (d.behaviour === 'silent') return
  const rolloutID = n.rolloutID
  await report(d, { rolloutID, status: 'downloading', progress: 0 })
  const bytes = d.behaviour === 'mqtt' ? await mqttDownload(d, n) : await httpDownload(d, creds, n)
  await report(d, { rolloutID, status: 'downloaded', progress: 100 })
  await report(d, { rolloutID, status: 'verifying' })
  if (d.behaviour === 'bad-checksum' || sha(bytes) !== n.sha256) {
    await report(d, { rolloutID, status: 'failed', error: 'checksum mismatch' })
    return
  }
  await report(d, { rolloutID, status: 'updating' })
  await report(d, { rolloutID, status: 'updated' })
}

/**
 * Connects a device that takes updates as `behaviour` says, to the test service or to the broker at an MQTT URL;
 * resolves once it is subscribed.
 */
export async function otaDevice(
  t: TestService | string,
  creds: DeviceCredentials,
  behaviour: Behaviour,
): Promise<OtaDevice> {
  const r = await connect(typeof t === 'string' ? t : mqttUrl(t), credentials(creds))
  if (!r.connack) throw new Error(`device ${creds.deviceID} not connected: ${r.error?.message}`)
  const client = r.client
  const d: OtaDevice = {
    client,
    notifies: [],
    cancels: [],
    reported: [],
    httpRequests: [],
    behaviour,
  }
  client.on('message', (topic, payload) => {
    if (topic.endsWith('ota/notify')) {
      const n = JSON.parse(String(payload)) as Notify
      d.notifies.push(n)
      void update(d, creds, n).catch(() => {})
    } else if (topic.endsWith('ota/cancel'))
      d.cancels.push(JSON.parse(String(payload)) as { rolloutID: string })
  })
  await client.subscribeAsync(['ota/notify', 'ota/cancel'], { qos: 1 })
  return d
}

/** Uploads `bytes` as a package of `productID` at `version` through the API; its record. */
export async function uploadFirmware(
  t: { url: string },
  authorization: string,
  productID: string,
  version: string,
  bytes: Uint8Array,
) {
  const form = new FormData()
  form.append('productID', productID)
  form.append('version', version)
  form.append('file', new Blob([bytes]), 'fw.bin')
  const res = await fetch(`${t.url}/api/v1/firmware`, {
    method: 'POST',
    headers: { authorization },
    body: form,
  })
  const text = await res.text()
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${text}`)
  return JSON.parse(text) as {
    id: number
    firmwareID: string
    version: string
    sha256: string
    size: number
  }
}
