/**
 * Pushes `{desired, delta, version, desiredVersion}` to devices on `state/delta` (QoS 1) without being asked:
 * - on every change of a device's document that changes its delta or its desired side (this node's changes, from
 *   the bus);
 * - through the embedded broker, to a device that subscribes to a filter matching `state/delta` (or connects with a
 *   session that kept one) while its delta is not empty;
 * - through the embedded broker with several nodes, a change made on another node: each node follows the
 *   `device.state` events of the outbox and pushes those of the devices connected to it;
 * - through an external broker (shared by every node), the node that made the change publishes the message
 *   retained, so the broker hands the latest one to the device at its next subscription.
 * A device may receive a version twice, or an older one after a newer one: it keeps the highest `version`.
 */
import type { DomainEvents, EventBus } from '../kernel/events.ts'
import { Invalid, TooLarge } from '../kernel/errors.ts'
import { topicMatches } from '../kernel/topics.ts'
import { isObject, type JsonObject } from '../rules/state.ts'
import type { MetaStore } from '../../store/types.ts'
import type { Identities } from './command-dispatch.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import { deltaMessage, documentMessage, documentOf, type StateDocument } from './state-document.ts'
import type { StateService } from './state.ts'

export const DELTA_TOPIC = 'state/delta'
export const DOCUMENT_TOPIC = 'state/document'
/** How often a node with the embedded broker reads the outbox for other nodes' changes. */
const FOLLOW_MS = 250
/** Outbox events a follow step reads at most. */
const FOLLOW_PAGE = 5000
/** How long a pushed delta waits for the device's PUBACK before the publish gives up. */
const PUSH_TIMEOUT_MS = 30_000

export interface StateDeliveryDeps {
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  identities: Identities
  state: StateService
  log: (message: string, e?: unknown) => void
}

/** A device's message on a `state/` topic as ingest hands it over (ingest/types.ts Uplink). */
export interface StateMessage {
  device: DeviceIdentity
  topic: string
  payload: Buffer | string
  parsed?: unknown
}

/** Why a state message is refused (its event records it). */
type Refusal = { errorCode: string; message: string }

const refusal = (errorCode: string, message: string): Refusal => ({ errorCode, message })

/** The JSON of a message: its parsed form when ingest has it, else its bytes parsed; undefined when empty. */
function jsonOf(m: StateMessage): { value: unknown } | Refusal {
  if (m.parsed !== undefined) return { value: m.parsed }
  const text = typeof m.payload === 'string' ? m.payload : m.payload.toString('utf8')
  if (!text.trim()) return { value: undefined }
  try {
    return { value: JSON.parse(text) }
  } catch {
    return refusal('FORM_INVALID', 'the payload is not JSON')
  }
}

const tokenOf = (v: unknown): string | undefined => {
  const t = isObject(v) ? v.clientToken : undefined
  return typeof t === 'string' ? t.slice(0, 64) : undefined
}

/**
 * A report's patch and clientToken: `{"reported": {...}, "clientToken": "..."}` when the object holds `reported` (an
 * object) and nothing but a clientToken beside it; any other object is the patch itself.
 */
function reportOf(v: unknown): { patch: JsonObject; clientToken?: string } | Refusal {
  if (!isObject(v)) return refusal('FORM_INVALID', 'a report is a JSON object')
  const inner = v.reported
  if (isObject(inner) && Object.keys(v).every((k) => k === 'reported' || k === 'clientToken'))
    return { patch: inner, clientToken: tokenOf(v) }
  return { patch: v }
}

type Message = Parameters<typeof deltaMessage>[0]

export function stateDelivery(d: StateDeliveryDeps) {
  const { meta, events, broker, identities, log } = d
  /** The highest version of each connected device this node pushed or saw change here (the follower skips those). */
  const seen = new Map<number, number>()
  let lastEvent = -1
  let following = false
  let timer: NodeJS.Timeout | undefined

  const note = (id: number, version: number) => {
    if ((seen.get(id) ?? -1) < version) seen.set(id, version)
  }

  function push(device: DeviceIdentity, m: Message) {
    if (!broker.connected(device)) return
    note(device.id, m.version)
    const payload = Buffer.from(JSON.stringify(deltaMessage(m)))
    broker
      .publish(device, DELTA_TOPIC, payload, {
        qos: 1,
        timeoutMs: PUSH_TIMEOUT_MS,
        retain: broker.shared,
      })
      .catch((e) => log(`state delta to ${device.deviceID} failed`, e))
  }

  const onState = (e: DomainEvents['device.state'][0]) => {
    identities
      .byId(e.deviceIntID)
      .then((device) => {
        if (!device || !broker.connected(device)) return
        note(device.id, e.version)
        if (e.side === 'desired' || e.deltaChanged) push(device, e)
      })
      .catch((err) => log('state delta failed', err))
  }

  /** Pushes the documents of connected devices whose delta is not empty (`versions`: only if newer than seen). */
  async function pushStored(devices: DeviceIdentity[], versions?: Map<number, number>) {
    const online = devices.filter((x) => broker.connected(x))
    if (!online.length) return
    const stored = await meta.state.byDevices(online.map((x) => x.id))
    for (const device of online) {
      const doc = documentOf(device, stored.get(device.id))
      const wanted = versions?.get(device.id)
      if (wanted !== undefined && (seen.get(device.id) ?? -1) >= doc.version) continue
      if (wanted === undefined && !Object.keys(doc.delta).length) continue
      push(device, doc)
    }
  }

  const onSubscribed = (e: { deviceIntID: number; filters: string[] }) => {
    if (!e.filters.some((f) => topicMatches(f, DELTA_TOPIC))) return
    identities
      .byId(e.deviceIntID)
      .then((device) => (device ? pushStored([device]) : undefined))
      .catch((err) => log('state delta on subscribe failed', err))
  }

  const onOffline = (e: { id: number }) => seen.delete(e.id)

  /** Reads the `device.state` events stored since the last step and pushes those of devices connected here. */
  async function follow() {
    if (following || lastEvent < 0) return
    following = true
    try {
      const { lastID, changes } = await meta.state.changesSince(lastEvent, FOLLOW_PAGE)
      lastEvent = lastID
      const newer = new Map<number, number>()
      for (const c of changes)
        if ((seen.get(c.deviceIntID) ?? -1) < c.version) newer.set(c.deviceIntID, c.version)
      const devices = await Promise.all([...newer.keys()].map((id) => identities.byId(id)))
      await pushStored(
        devices.filter((x): x is DeviceIdentity => x !== undefined),
        newer,
      )
    } catch (e) {
      log('state follow failed', e)
    } finally {
      following = false
    }
  }

  const publishDocument = (device: DeviceIdentity, doc: StateDocument, token?: string) =>
    void broker
      .publish(device, DOCUMENT_TOPIC, Buffer.from(JSON.stringify(documentMessage(doc, token))), {
        qos: 1,
        timeoutMs: PUSH_TIMEOUT_MS,
      })
      .catch((e) => log(`state document to ${device.deviceID} failed`, e))

  /** `state/reported`: the patch is committed; with a clientToken, the document is sent back on state/document. */
  async function reported(m: StateMessage): Promise<Refusal | undefined> {
    const json = jsonOf(m)
    if (!('value' in json)) return json
    const r = reportOf(json.value)
    if (!('patch' in r)) return r
    try {
      const doc = await d.state.report(m.device, r.patch)
      if (r.clientToken !== undefined) publishDocument(m.device, doc, r.clientToken)
      return undefined
    } catch (e) {
      if (e instanceof TooLarge) return refusal('PAYLOAD_TOO_LARGE', e.message)
      if (e instanceof Invalid)
        return refusal(
          'FORM_INVALID',
          Object.entries(e.errors)
            .map(([k, v]) => `${k}: ${v}`)
            .join('; '),
        )
      throw e
    }
  }

  /** `state/get`: the whole document goes back on state/document (with the clientToken given). */
  async function get(m: StateMessage): Promise<Refusal | undefined> {
    const json = jsonOf(m)
    if (!('value' in json)) return json
    publishDocument(m.device, await d.state.document(m.device), tokenOf(json.value))
    return undefined
  }

  return {
    /** A device's message on a `state/` topic (ingest's DeviceStateInbox). */
    receive(m: StateMessage): Promise<Refusal | undefined> {
      const topic = m.topic.replace(/^\/+|\/+$/g, '')
      if (topic === 'state/reported') return reported(m)
      if (topic === 'state/get') return get(m)
      return Promise.resolve(
        refusal(
          'PERMISSION_DENIED',
          `${topic}: state/ topics are reserved; a device publishes state/reported and state/get`,
        ),
      )
    },

    async start() {
      events.on('device.state', onState)
      events.on('device.subscribed', onSubscribed)
      events.on('device.offline', onOffline)
      if (broker.shared) return
      lastEvent = await meta.webhooks.lastEventID()
      timer = setInterval(() => void follow(), FOLLOW_MS)
      timer.unref()
    },
    close() {
      clearInterval(timer)
      events.off('device.state', onState)
      events.off('device.subscribed', onSubscribed)
      events.off('device.offline', onOffline)
    },
  }
}
