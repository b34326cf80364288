/**
 * A device's messages on its `state/` topics (ingest's DeviceStateInbox, through src/service.ts):
 * - `state/reported`: a merge patch of `reported` (a bare object, or `{"reported": {...}, "clientToken": "..."}`),
 *   committed before the message is acknowledged; with a clientToken the document goes back on `state/document`;
 * - `state/get` (`{"clientToken": "..."}` or empty): the whole document on `state/document`;
 * - any other `state/` topic is reserved: refused.
 * A refusal answers why (`{errorCode, message}`); ingest records it as the message's event.
 */
import { Invalid, TooLarge } from '../kernel/errors.ts'
import { isObject, type JsonObject } from '../rules/state.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import { documentMessage, type StateDocument, type StateOwner } from './state-document.ts'

/** What the inbox needs of the state service (src/services/state.ts). */
export interface StateReports {
  /** Commits a device's merge patch of `reported`; the document after it. */
  report(owner: StateOwner, reported: unknown): Promise<StateDocument>
  /** A device's document. */
  document(owner: StateOwner): Promise<StateDocument>
}

export const DOCUMENT_TOPIC = 'state/document'
/** A state message larger than this is refused unread (a side holds 16 KiB; a patch needs no more than this). */
export const MAX_STATE_MESSAGE = 64 * 1024
/** How long a document sent back waits for the device's PUBACK before the publish gives up. */
const SEND_TIMEOUT_MS = 30_000

/** A device's message on a `state/` topic as ingest hands it over (ingest/types.ts Uplink). */
export interface StateMessage {
  device: DeviceIdentity
  topic: string
  payload: Buffer | string
  parsed?: unknown
}

/** Why a state message is refused (its event records it). */
export type Refusal = { errorCode: string; message: string }

export const refusal = (errorCode: string, message: string): Refusal => ({ errorCode, message })

/** The JSON of a message: its parsed form when ingest has it, else its bytes parsed; undefined when empty. */
export function jsonOf(m: StateMessage): { value: unknown } | Refusal {
  const bytes = typeof m.payload === 'string' ? Buffer.byteLength(m.payload) : m.payload.length
  if (bytes > MAX_STATE_MESSAGE)
    return refusal(
      'PAYLOAD_TOO_LARGE',
      `${bytes} bytes: a state message holds at most ${MAX_STATE_MESSAGE}`,
    )
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

/** A refused patch's reason; other errors are not the device's fault and go on. */
function refusalOf(e: unknown): Refusal {
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

export function stateInbox(d: {
  broker: CommandBroker
  state: StateReports
  log: (message: string, e?: unknown) => void
}) {
  const sendDocument = (device: DeviceIdentity, doc: StateDocument, token?: string) =>
    void d.broker
      .publish(device, DOCUMENT_TOPIC, Buffer.from(JSON.stringify(documentMessage(doc, token))), {
        qos: 1,
        timeoutMs: SEND_TIMEOUT_MS,
      })
      .catch((e) => d.log(`state document to ${device.deviceID} failed`, e))

  async function reported(m: StateMessage): Promise<Refusal | undefined> {
    const json = jsonOf(m)
    if (!('value' in json)) return json
    const r = reportOf(json.value)
    if (!('patch' in r)) return r
    try {
      const doc = await d.state.report(m.device, r.patch)
      if (r.clientToken !== undefined) sendDocument(m.device, doc, r.clientToken)
      return undefined
    } catch (e) {
      return refusalOf(e)
    }
  }

  async function get(m: StateMessage): Promise<Refusal | undefined> {
    const json = jsonOf(m)
    if (!('value' in json)) return json
    sendDocument(m.device, await d.state.document(m.device), tokenOf(json.value))
    return undefined
  }

  return {
    /** A device's message on a `state/` topic: undefined once handled, or why it was refused. */
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
  }
}
