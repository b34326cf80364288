/**
 * HTTP ingest (POST /ingest, GET /ingest/commands) below the route: the device behind HTTP Basic credentials, on
 * the credentials check the brokers use (credentials.ts), the device each message is for, and the messages handed
 * to the pipeline. src/routes/ingest.ts only reads the request and writes the answer.
 */
import type { IngestRepository } from '../store/types.ts'
import { uplinkTopic } from '../src/kernel/topics.ts'
import { checkBasicCredentials } from './credentials.ts'
import type { DeviceDirectory } from './identity.ts'
import {
  Backpressure,
  StorageFull,
  type DeviceIdentity,
  type HttpIngest,
  type HttpIngestOutcome,
  type HttpMessage,
  type HttpRejection,
  type IngestSender,
  type Pipeline,
  type UplinkOutcome,
} from './types.ts'

/**
 * Where HTTP ingest finds devices: the senders behind credentials in the metadata store (one read a request), the
 * devices messages name in the process's device directory (ingest/identity.ts: memory, one read for the misses).
 */
export interface HttpDevices {
  credentials: Pick<IngestRepository, 'devicesByUsername'>
  directory: Pick<DeviceDirectory, 'byDeviceIDs'>
}

type Target =
  { ok: true; device: DeviceIdentity } | { ok: false; errorCode: string; message: string }
type Message = Extract<HttpMessage, { ok: true }>['message']

/** HTTP ingest over the device reads and the pipeline. */
export function createHttpIngest(deps: HttpDevices & { pipeline: Pipeline }): HttpIngest {
  const { credentials, pipeline } = deps
  return {
    login: (username, token) =>
      checkBasicCredentials((u) => credentials.devicesByUsername(u), username, token),

    async submit(sender, messages, ip): Promise<HttpIngestOutcome> {
      const rejected: HttpRejection[] = []
      const receivedAt = Date.now()
      const named = await namedDevices(deps.directory, sender, messages)
      const targets = messages.map((m) => (m.ok ? targetOf(named, sender, m.message) : m))
      const work = targets.map(async (t, index): Promise<UplinkOutcome | undefined> => {
        if (!t.ok) {
          rejected.push({ index, errorCode: t.errorCode, message: t.message })
          return undefined
        }
        const m = (messages[index] as { message: Message }).message
        const outcome = await pipeline.submit({
          device: t.device,
          topic: uplinkTopic(t.device, m.topic),
          ...payloadOf(m.payload),
          receivedAt,
          ip,
        })
        if (outcome.rejected.length) {
          const text = outcome.rejected.map((r) =>
            r.deviceID && r.deviceID !== t.device.deviceID
              ? `${r.deviceID}: ${r.message}`
              : r.message,
          )
          rejected.push({
            index,
            errorCode: outcome.rejected[0]!.errorCode,
            message: text.join('; '),
          })
        }
        return outcome
      })
      const settled = await Promise.allSettled(work)
      let accepted = 0
      let queued = 0
      let busy = 0
      let full = 0
      for (const [index, s] of settled.entries()) {
        if (s.status === 'fulfilled') {
          if (s.value) {
            accepted += s.value.accepted
            queued++
          }
        } else if (s.reason instanceof StorageFull) {
          full++
          rejected.push({
            index,
            errorCode: 'INSUFFICIENT_STORAGE',
            message: 'the disk is full; retry when space is freed',
          })
        } else if (s.reason instanceof Backpressure) {
          busy++
          rejected.push({
            index,
            errorCode: 'TOO_MANY_REQUESTS',
            message: 'the ingest queue is full; retry later',
          })
        } else throw s.reason
      }
      return {
        accepted,
        rejected: rejected.sort((a, b) => a.index - b.index),
        busy: busy > 0 && queued === 0,
        full: full > 0 && queued === 0,
      }
    },
  }
}

/** The sender's tenant's devices that the messages name (beside the sender itself), by deviceID: one lookup. */
function namedDevices(
  directory: HttpDevices['directory'],
  sender: IngestSender,
  messages: readonly HttpMessage[],
): Promise<Map<string, DeviceIdentity>> {
  const self = sender.kind === 'device' ? sender.device : undefined
  const ids = new Set<string>()
  // a device that is no gateway sends only for itself: what else it names is refused unread
  if (!self || self.kind === 'gateway')
    for (const m of messages)
      if (m.ok && m.message.deviceID !== undefined && m.message.deviceID !== self?.deviceID)
        ids.add(m.message.deviceID)
  return directory.byDeviceIDs(
    sender.kind === 'device' ? sender.device.tenantID : sender.tenantID,
    ids,
  )
}

/**
 * The device a message is for: the sender itself, a child of the sending gateway, or a device of the caller's
 * tenant (`named`: the tenant's devices the messages name).
 */
function targetOf(named: Map<string, DeviceIdentity>, sender: IngestSender, m: Message): Target {
  const foreign = (id: string): Target => ({
    ok: false,
    errorCode: 'DATA_NOT_FOUND',
    message: `deviceID: no device ${id}`,
  })
  let device: DeviceIdentity | undefined
  if (sender.kind === 'device') {
    const self = sender.device
    if (m.deviceID === undefined || m.deviceID === self.deviceID) return { ok: true, device: self }
    device = named.get(m.deviceID)
    // a gateway's credentials may send for its own devices, nobody else's
    if (!device || self.kind !== 'gateway' || device.gatewayIntID !== self.id)
      return foreign(m.deviceID)
  } else {
    if (m.deviceID === undefined)
      return {
        ok: false,
        errorCode: 'FORM_INVALID',
        message: 'deviceID: required with API credentials',
      }
    device = named.get(m.deviceID)
    if (!device || device.tenantID !== sender.tenantID) return foreign(m.deviceID)
  }
  if (device.blocked)
    return {
      ok: false,
      errorCode: 'PERMISSION_DENIED',
      message: `deviceID: ${device.deviceID} is blocked`,
    }
  return { ok: true, device }
}

/**
 * The payload: a string as its UTF-8 bytes (a lone surrogate becomes U+FFFD, as on every other path), a JSON
 * object (or any JSON value) as its JSON text, left a string (JSON.stringify writes no lone surrogate: the event
 * keeps it as it is, with no trip through bytes), and then with the object itself, so that the pipeline does not
 * parse the text again. Not when the text holds a `null`: that may stand for a number JSON text cannot carry
 * (1e999 was read as Infinity), which the text's reader sees as null.
 */
function payloadOf(p: unknown): { payload: Buffer | string; parsed?: unknown } {
  if (typeof p === 'string') return { payload: Buffer.from(p) }
  const text = JSON.stringify(p)
  return text.includes('null') ? { payload: text } : { payload: text, parsed: p }
}
