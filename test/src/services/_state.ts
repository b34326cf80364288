/** Helpers of the device state tests: a device's state messages over MQTT, and the document's wire type. */
import type { MqttClient } from 'mqtt'
import type { Wire } from '../../_support/wire.ts'
import type { StateDocument } from '../../../src/schemas/state.ts'
import { until } from '../../ingest/_mqtt.ts'

export type Doc = Wire<typeof StateDocument>

/** What a device receives on `state/delta`. */
export interface DeltaMessage {
  desired: Record<string, unknown>
  delta: Record<string, unknown>
  version: number
  desiredVersion: number
}

/** A device's state messages as it receives them, in order, with when each arrived. */
export interface StateInbox {
  deltas: Array<DeltaMessage & { at: number }>
  documents: Array<Record<string, unknown> & { at: number }>
}

/** Collects what `client` receives on its `state/delta` and `state/document` topics (relative or full). */
export function stateInbox(client: MqttClient): StateInbox {
  const inbox: StateInbox = { deltas: [], documents: [] }
  client.on('message', (topic, payload) => {
    const at = Date.now()
    if (topic.endsWith('state/delta'))
      inbox.deltas.push({ ...(JSON.parse(payload.toString()) as DeltaMessage), at })
    else if (topic.endsWith('state/document'))
      inbox.documents.push({ ...(JSON.parse(payload.toString()) as Record<string, unknown>), at })
  })
  return inbox
}

/** Waits (at most `timeoutMs`) for a delta that `ok` accepts; it, or undefined. */
export async function deltaWhere(
  inbox: StateInbox,
  ok: (m: DeltaMessage) => boolean,
  timeoutMs = 3000,
) {
  const found = await until(
    async () => inbox.deltas.find(ok),
    (m) => m !== undefined,
    timeoutMs,
  )
  return found
}
