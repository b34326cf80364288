/**
 * What the kill -9 suites share: the service in a child process over a data directory of the test's own, killed
 * with SIGKILL and started again on it; devices connected over MQTT that count the commands they receive.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt'
import type { Client } from '../../_support/service.ts'
import { killChild, startChildService, type ChildService } from '../../_support/child-service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { Db } from '../../../store/libsql/db.ts'
import type { Group } from '../../../src/schemas/groups.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../routes/devices-helpers.ts'

export type Child = ChildService<{ url: string; mqttPort: number }>

/** Starts the service in a child process with `dir` as its DATA_DIR, and `env` added. */
export const startChild = (dir: string, env: Record<string, string> = {}): Promise<Child> =>
  startChildService('test/ingest/_service-child.ts', { DATA_DIR: dir, ...env })

/** What a kill -9 test holds open: the service before (a) and after (b) the kill, a raw handle on its database. */
export interface Scene {
  dir: string
  a?: Child
  b?: Child
  db?: Db
  clients: MqttClient[]
}

/** Runs `body` over a fresh data directory, then closes and kills what it left open and removes the directory. */
export async function crashScene(prefix: string, body: (s: Scene) => Promise<void>) {
  const s: Scene = { dir: mkdtempSync(join(tmpdir(), prefix)), clients: [] }
  try {
    await body(s)
  } finally {
    void s.db?.close()
    for (const m of s.clients) m.end(true)
    for (const c of [s.a, s.b]) if (c) await killChild(c)
    rmSync(s.dir, { recursive: true, force: true })
  }
}

/** A product with `n` MQTT devices, all in its group `all`. */
export async function groupOfDevices(admin: Client, n: number) {
  const product = await newProduct(admin)
  const ds: NewDevice[] = []
  for (let i = 0; i < n; i++) ds.push(await newDevice(admin, mqttBody(product.productID)))
  const g = await admin.post<Wire<typeof Group>>('/api/v1/groups', {
    productID: product.productID,
    groupName: 'all',
  })
  await admin.post(`/api/v1/groups/${g.body.id}/devices`, { ids: ds.map((d) => d.id) })
  return { ds, g: g.body }
}

/**
 * Connects devices; counts the commands each receives by taskID. `ack: false`: the client never acknowledges a
 * command (no PUBACK), so it stays `sent`.
 */
export async function connectAll(
  port: number,
  ds: NewDevice[],
  seen: Map<string, number>,
  ack = true,
) {
  const clients: MqttClient[] = []
  const count = (payload: Buffer) => {
    const { task_id } = JSON.parse(payload.toString())
    seen.set(task_id, (seen.get(task_id) ?? 0) + 1)
  }
  for (const d of ds) {
    const opts: IClientOptions = {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
    }
    const m = mqtt.connect(`mqtt://127.0.0.1:${port}`, opts)
    // the PUBACK follows handleMessage's callback: never called, never acknowledged
    if (!ack) m.handleMessage = () => {}
    m.on('message', (_t, payload) => count(payload))
    m.on('error', () => {})
    await new Promise<void>((resolve, reject) => {
      m.once('connect', () => resolve())
      m.once('error', reject)
    })
    clients.push(m)
  }
  return clients
}
