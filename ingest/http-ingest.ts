/**
 * HTTP ingest (POST /ingest, GET /ingest/commands) below the route: the device behind HTTP Basic credentials, on
 * the credentials check the brokers use (credentials.ts), the device each message is for, and the messages handed
 * to the pipeline. src/routes/ingest.ts only reads the request and writes the answer.
 */
import type { IngestRepository } from '../store/types.ts'
import { uplinkTopic } from '../src/kernel/topics.ts'
import { checkBasicCredentials } from './credentials.ts'
import {
  Backpressure,
  type DeviceIdentity,
  type HttpIngest,
  type HttpIngestOutcome,
  type HttpMessage,
  type HttpRejection,
  type IngestSender,
  type Pipeline,
  type UplinkOutcome,
} from './types.ts'

/** Where HTTP ingest finds devices: the metadata store's ingest reads, or a cache in front of them. */
export type HttpDevices = Pick<IngestRepository, 'devicesByUsername' | 'deviceByDeviceID'>

type Target =
  { ok: true; device: DeviceIdentity } | { ok: false; errorCode: string; message: string }
type Message = Extract<HttpMessage, { ok: true }>['message']

/** HTTP ingest over the device reads and the pipeline. */
export function createHttpIngest(deps: { devices: HttpDevices; pipeline: Pipeline }): HttpIngest {
  const { devices, pipeline } = deps
  return {
    login: (username, token) =>
      checkBasicCredentials((u) => devices.devicesByUsername(u), username, token),

    async submit(sender, messages, ip): Promise<HttpIngestOutcome> {
      const rejected: HttpRejection[] = []
      const receivedAt = Date.now()
      const targets = await Promise.all(
        messages.map((m) => (m.ok ? targetOf(devices, sender, m.message) : m)),
      )
      const work = targets.map(async (t, index): Promise<UplinkOutcome | undefined> => {
        if (!t.ok) {
          rejected.push({ index, errorCode: t.errorCode, message: t.message })
          return undefined
        }
        const m = (messages[index] as { message: Message }).message
        const outcome = await pipeline.submit({
          device: t.device,
          topic: uplinkTopic(t.device, m.topic),
          payload: payloadBytes(m.payload),
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
      for (const [index, s] of settled.entries()) {
        if (s.status === 'fulfilled') {
          if (s.value) ((accepted += s.value.accepted), queued++)
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
      }
    },
  }
}

/** The device a message is for: the sender itself, a child of the sending gateway, or a device of the caller's tenant. */
async function targetOf(devices: HttpDevices, sender: IngestSender, m: Message): Promise<Target> {
  const foreign = (id: string): Target => ({
    ok: false,
    errorCode: 'DATA_NOT_FOUND',
    message: `deviceID: no device ${id}`,
  })
  let device: DeviceIdentity | undefined
  if (sender.kind === 'device') {
    const self = sender.device
    if (m.deviceID === undefined || m.deviceID === self.deviceID) return { ok: true, device: self }
    device = await devices.deviceByDeviceID(m.deviceID)
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
    device = await devices.deviceByDeviceID(m.deviceID)
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

/** The payload bytes: a JSON object (or any JSON value) as JSON text, a string as given. */
const payloadBytes = (p: unknown) => Buffer.from(typeof p === 'string' ? p : JSON.stringify(p))
