/**
 * A device's messages on its `ota/` topics (part of ingest's DeviceInbox, through src/service.ts):
 * - `ota/progress` `{rolloutID, status, progress?, error?}`: its state in a rollout, stored before the message is
 *   acknowledged (rolloutService.report);
 * - `ota/chunk/get` `{firmwareID, offset, length}`: `length` bytes (at most 65,536) of a package of its product
 *   from `offset`, answered raw on `ota/chunk/<offset>`; at most CHUNKS_IN_FLIGHT answers a device waits for;
 * - any other `ota/` topic is reserved: refused.
 * A refusal answers why; ingest records it as the message's event.
 */
import { issuesToErrors } from '../kernel/errors.ts'
import { OtaChunkRequest, OtaProgress } from '../schemas/rollouts.ts'
import type { FirmwareService } from './firmware.ts'
import type { CommandBroker } from './ports.ts'
import type { RolloutService } from './rollouts.ts'
import { jsonOf, refusal, type Refusal, type StateMessage } from './state-inbox.ts'

/** Chunk answers a device may wait for at once; more requests are refused until some are acknowledged. */
export const CHUNKS_IN_FLIGHT = 8
/** How long a chunk waits for the device's PUBACK. */
const CHUNK_TIMEOUT_MS = 30_000

/** The first failing field of a body, as a refusal. */
function formRefusal(issues: Parameters<typeof issuesToErrors>[0]): Refusal {
  const errors = issuesToErrors(issues)
  return refusal(
    'FORM_INVALID',
    Object.entries(errors)
      .map(([k, v]) => `${k}: ${v}`)
      .join('; '),
  )
}

export function otaInbox(d: {
  broker: CommandBroker
  rollouts: RolloutService
  firmware: FirmwareService
  log: (message: string, e?: unknown) => void
}) {
  /** Per device: chunk answers not yet acknowledged. */
  const inFlight = new Map<number, number>()

  async function progress(m: StateMessage): Promise<Refusal | undefined> {
    const json = jsonOf(m)
    if (!('value' in json)) return json
    const body = OtaProgress.safeParse(json.value)
    if (!body.success) return formRefusal(body.error.issues)
    const refused = await d.rollouts.report(m.device, body.data)
    return refused === undefined ? undefined : refusal('PARAMETER_INVALID', refused)
  }

  async function chunk(m: StateMessage): Promise<Refusal | undefined> {
    const json = jsonOf(m)
    if (!('value' in json)) return json
    const body = OtaChunkRequest.safeParse(json.value)
    if (!body.success) return formRefusal(body.error.issues)
    const { firmwareID, offset, length } = body.data
    const busy = inFlight.get(m.device.id) ?? 0
    if (busy >= CHUNKS_IN_FLIGHT)
      return refusal(
        'TOO_MANY_REQUESTS',
        `${busy} chunks wait for their PUBACK: ask again after them`,
      )
    let fw
    try {
      fw = await d.firmware.forDevice(m.device, firmwareID)
    } catch {
      return refusal('NOT_FOUND', `${firmwareID}: no such firmware for this device`)
    }
    if (offset >= fw.size)
      return refusal('PARAMETER_INVALID', `offset: past the end (${fw.size} bytes)`)
    const bytes = await d.firmware.readBytes(
      fw.file,
      offset,
      Math.min(fw.size, offset + length) - 1,
    )
    inFlight.set(m.device.id, busy + 1)
    // not awaited: the device acknowledges the chunk after its own request was acknowledged
    d.broker
      .publish(m.device, `ota/chunk/${offset}`, bytes, { qos: 1, timeoutMs: CHUNK_TIMEOUT_MS })
      .catch((e) => d.log(`ota chunk to ${m.device.deviceID} failed`, e))
      .finally(() => {
        const n = (inFlight.get(m.device.id) ?? 1) - 1
        if (n > 0) inFlight.set(m.device.id, n)
        else inFlight.delete(m.device.id)
      })
    return undefined
  }

  return {
    /** A device's message on an `ota/` topic: undefined once handled, or why it was refused. */
    receive(m: StateMessage): Promise<Refusal | undefined> {
      const topic = m.topic.replace(/^\/+|\/+$/g, '')
      if (topic === 'ota/progress') return progress(m)
      if (topic === 'ota/chunk/get') return chunk(m)
      return Promise.resolve(
        refusal(
          'PERMISSION_DENIED',
          `${topic}: ota/ topics are reserved; a device publishes ota/progress and ota/chunk/get`,
        ),
      )
    },
  }
}
