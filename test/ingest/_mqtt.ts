/** MQTT.js helpers for the broker tests: every wait is bounded. */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt'
import type { TestService } from '../_support/service.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../src/routes/devices-helpers.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface Connected {
  client: MqttClient
  connack?: { returnCode?: number; reasonCode?: number }
  error?: Error & { code?: number }
}

/** Connects and resolves on CONNACK, error or close (never rejects; at most `timeoutMs`). */
export function connect(url: string, opts: IClientOptions, timeoutMs = 4000): Promise<Connected> {
  return new Promise((resolve) => {
    const client = mqtt.connect(url, {
      reconnectPeriod: 0,
      connectTimeout: timeoutMs,
      protocolVersion: 4,
      ...opts,
    })
    const timer = setTimeout(() => done({ client, error: new Error('timeout') }), timeoutMs + 500)
    let settled = false
    const done = (r: Connected) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(r)
    }
    client.once('connect', (connack) => done({ client, connack: connack }))
    client.once('error', (error) => done({ client, error: error }))
    client.once('close', () => setTimeout(() => done({ client, error: new Error('closed') }), 100))
  })
}

/** What a device's MQTT credentials are made of, from its record as the API answers it. */
export interface DeviceCredentials {
  deviceID: string
  deviceUsername: string
  token: string
}

/** The credentials of a device record as the API answers it. */
export const credentials = (d: DeviceCredentials): IClientOptions => ({
  clientId: d.deviceID,
  username: d.deviceUsername,
  password: d.token,
})

export const mqttUrl = (t: TestService) => `mqtt://127.0.0.1:${t.svc.deps.broker.port}`
export const wsUrl = (t: TestService) => `ws://127.0.0.1:${t.svc.deps.broker.wsPort}/mqtt`

/** Connects a device with its own credentials; throws unless accepted. */
export async function connectDevice(
  t: TestService,
  d: DeviceCredentials,
  opts: IClientOptions = {},
): Promise<MqttClient> {
  const r = await connect(mqttUrl(t), { ...credentials(d), ...opts })
  if (!r.connack) throw new Error(`device ${d.deviceID} not connected: ${r.error?.message}`)
  return r.client
}

/** `n` device records: a tuple of that length when `n` is a literal, so `const [a, b] = ...` reads both. */
type DeviceList<N extends number, Acc extends NewDevice[] = []> = number extends N
  ? NewDevice[]
  : Acc['length'] extends N
    ? Acc
    : DeviceList<N, [...Acc, NewDevice]>

/** A new MQTT product and `n` devices on it (through the API). */
export async function devices<N extends number>(
  t: TestService,
  n: N,
  extra: Record<string, unknown> = {},
) {
  const product = await newProduct(t.admin)
  const list: NewDevice[] = []
  for (let i = 0; i < n; i++)
    list.push(await newDevice(t.admin, mqttBody(product.productID, extra)))
  return { product, devices: list as DeviceList<N> }
}

/** One new device, on a new MQTT product of its own. */
export const oneDevice = async (t: TestService) => (await devices(t, 1)).devices[0]

/** One new device (on a new product), connected with its own credentials. */
export async function connectedDevice(t: TestService) {
  const d = await oneDevice(t)
  return { d, c: await connectDevice(t, d) }
}

/** A new MQTT product with a numeric data point `temp` on a data stream, and a device of it. */
export async function streamDevice(t: TestService) {
  const product = await newProduct(t.admin)
  const point = await mkPoint(t.admin, product.id, 'temp')
  const stream = await mkStream(t.admin, product.productID, [point.id])
  const device = await newDevice(t.admin, mqttBody(product.productID))
  return { product, point, stream, device }
}

/** The full topic of a device's relative topic, from the stored record. */
export async function fullTopic(
  t: TestService,
  d: { id: number; deviceID: string },
  topic: string,
): Promise<string> {
  const row = await t.db.one(
    `SELECT d.tenant_id AS tenantID, p.product_id AS productID, p.cloud_protocol AS cloudProtocol
     FROM devices d JOIN products p ON p.id = d.product_int_id WHERE d.id = ?`,
    [d.id],
  )
  if (!row) throw new Error(`no device ${d.id}`)
  const protocols: Record<number, string> = {
    1: 'mqtt',
    2: 'coap',
    3: 'lwm2m',
    4: 'lora',
    5: 'http',
    6: 'websocket',
    7: 'modbus',
  }
  const protocol = protocols[row.cloudProtocol as number]
  return `/${protocol}/${String(row.tenantID)}/${String(row.productID)}/${d.deviceID}/${topic}`
}

/** The SUBACK codes a rejected subscription's error carries, when it carries them. */
export const grantedOf = (e: unknown): number[] | undefined =>
  (e as { packet?: { granted?: number[] } } | null | undefined)?.packet?.granted

/** The SUBACK codes of a subscription (MQTT.js rejects when one is a failure: then they are read from the error). */
export async function subscribe(
  c: MqttClient,
  filters: string[],
  opts: { qos: 0 | 1 } = { qos: 1 },
): Promise<number[]> {
  try {
    return (await c.subscribeAsync(filters, opts)).map((g) => g.qos)
  } catch (e) {
    const granted = grantedOf(e)
    if (granted) return granted
    throw e
  }
}

/** Polls `fn` until `ok` holds or `timeoutMs` passes; returns the last value. */
export async function until<T>(
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 3000,
  stepMs = 25,
): Promise<T> {
  const end = Date.now() + timeoutMs
  let v = await fn()
  while (!ok(v) && Date.now() < end) {
    await sleep(stepMs)
    v = await fn()
  }
  return v
}

/** Waits (at most `timeoutMs`) until `list` holds at least `n` items; the number it holds. */
export const gotAtLeast = (list: { length: number }, n: number, timeoutMs = 3000) =>
  until(
    async () => list.length,
    (k) => k >= n,
    timeoutMs,
  )

/** Resolves true when the client closes within `ms`. */
export function closedWithin(client: MqttClient, ms: number): Promise<boolean> {
  if (!client.connected) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    client.once('close', () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

/** Ends a client without waiting on the network. */
export const end = (c: MqttClient | undefined) => c?.end(true)

/** A command as a device receives it on its topics. */
export interface Command {
  data_type: string
  task_id: string
  data?: Record<string, unknown>
}

/** Pushes each JSON message the client receives onto `got` (one not JSON is no command), then hands it to `then`. */
export function collectCommands(
  client: MqttClient,
  got: Command[],
  then: (m: Command) => void = () => {},
) {
  client.on('message', (_topic, payload) => {
    let m: Command
    try {
      m = JSON.parse(payload.toString())
    } catch {
      return // not JSON: not a command of these tests
    }
    got.push(m)
    then(m)
  })
}

/** Waits (at most `timeoutMs`) for a command in `got` that `match` accepts; undefined when none came. */
export const commandIn = (got: Command[], match: (m: Command) => boolean, timeoutMs = 5000) =>
  until(
    () => Promise.resolve(got.find(match)),
    (m) => m !== undefined,
    timeoutMs,
  )

/** The device's answer to command `taskID`, with that code, published on `topic` (its stream's full topic). */
export const answerCommand = (client: MqttClient, topic: string, taskID: string, code = 200) =>
  client.publishAsync(
    topic,
    JSON.stringify({ data_type: 'response', result: { task_id: taskID, code } }),
    { qos: 1 },
  )
