import type { Rejection } from './types.ts'
import { epochMs } from './values.ts'

/**
 * A device's values as the payload gave them, not yet checked against their data points: value i is `values[i]`
 * of data point `ids[i]` at `times[i]` (epoch ms). Columns, not an object a value: every uplink's values are
 * decoded, checked and made into points, and an object a value here was as many objects again to collect.
 */
export interface RawValues {
  ids: string[]
  times: number[]
  values: unknown[]
}

/** The values a gateway sent for one of its child devices (form 3). */
export interface ChildValues {
  deviceID: string
  values: RawValues
  /** The child's entry as JSON text (its event's payload). */
  raw: string
  /** Values of this child that could not be read (bad time). */
  problems: Rejection[]
}

/** An uplink payload decoded into per-device value lists (any of the four forms, see decodePayload). */
export type Decoded =
  | { form: 'invalid'; reason: string }
  | { form: 'response'; taskID: string; code: unknown }
  | {
      form: 'plain' | 'event' | 'gateway'
      /** The sending device's own values. */
      values: RawValues
      /** Form 3: the child devices' values. */
      devices: ChildValues[]
      /** Values or entries that could not be read. */
      problems: Rejection[]
    }

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)

/** A payload time (epoch s, or ms when > 10^12, or a date-time text) → epoch ms; undefined when unreadable. */
export function payloadTime(t: unknown): number | undefined {
  if (typeof t === 'number' && Number.isFinite(t) && t >= 0) return epochMs(t)
  if (typeof t === 'string' && t.trim() !== '') {
    const n = Number(t)
    if (Number.isFinite(n) && n >= 0) return epochMs(n)
    const ms = Date.parse(t)
    if (Number.isFinite(ms)) return ms
  }
  return undefined
}

const noValues = (): RawValues => ({ ids: [], times: [], values: [] })

/** Form 1: `{dataPointID: value}`, every value at `receivedAt`. */
function plainValues(o: Obj, receivedAt: number): RawValues {
  // no entries() pairs: the hot path of every uplink
  const ids = Object.keys(o)
  const values = new Array<unknown>(ids.length)
  for (let i = 0; i < ids.length; i++) values[i] = o[ids[i]!]
  return { ids, times: new Array<number>(ids.length).fill(receivedAt), values }
}

/** Forms 2/3: `{dataPointID: {time, value}}` or `{dataPointID: value}`; unreadable times become problems. */
function eventValues(
  data: Obj,
  receivedAt: number,
  problems: Rejection[],
  deviceID?: string,
): RawValues {
  const out = noValues()
  for (const dataPointID of Object.keys(data)) {
    const entry = data[dataPointID]
    if (!isObject(entry) || !('value' in entry)) {
      out.ids.push(dataPointID)
      out.times.push(receivedAt)
      out.values.push(entry)
      continue
    }
    const time =
      entry.time === undefined || entry.time === null ? receivedAt : payloadTime(entry.time)
    if (time === undefined) {
      problems.push({
        dataPointID,
        deviceID,
        errorCode: 'FORM_INVALID',
        message: `${dataPointID}: unreadable time`,
      })
      continue
    }
    out.ids.push(dataPointID)
    out.times.push(time)
    out.values.push(entry.value)
  }
  return out
}

/** Form 3 is told apart from form 2 by `data.devices` (an array) or `data.gateway` (an object of points). */
function isGatewayData(data: Obj): boolean {
  if ('devices' in data && Array.isArray(data.devices)) return true
  return isObject(data.gateway) && !('value' in data.gateway)
}

function childValues(
  entry: unknown,
  index: number,
  receivedAt: number,
  problems: Rejection[],
): ChildValues | undefined {
  const id = isObject(entry) ? entry.device_id : undefined
  if (!isObject(entry) || typeof id !== 'string' || id === '' || !isObject(entry.data)) {
    problems.push({
      errorCode: 'FORM_INVALID',
      message: `devices[${index}]: expected {device_id, data}`,
    })
    return undefined
  }
  const own: Rejection[] = []
  const values = eventValues(entry.data, receivedAt, own, id)
  return { deviceID: id, values, raw: JSON.stringify(entry), problems: own }
}

function decodeEvent(o: Obj, receivedAt: number): Decoded {
  if (!isObject(o.data)) return { form: 'invalid', reason: 'event payload without a data object' }
  const problems: Rejection[] = []
  if (!isGatewayData(o.data))
    return {
      form: 'event',
      values: eventValues(o.data, receivedAt, problems),
      devices: [],
      problems,
    }
  const own = isObject(o.data.gateway)
    ? eventValues(o.data.gateway, receivedAt, problems)
    : noValues()
  const list = Array.isArray(o.data.devices) ? o.data.devices : []
  const devices = list.flatMap((e, i) => childValues(e, i, receivedAt, problems) ?? [])
  return { form: 'gateway', values: own, devices, problems }
}

function decodeResponse(o: Obj): Decoded {
  const result = o.result
  const taskID = isObject(result) ? result.task_id : undefined
  if (typeof taskID !== 'string' || taskID === '')
    return { form: 'invalid', reason: 'response without result.task_id' }
  return { form: 'response', taskID, code: (result as Obj).code ?? null }
}

/**
 * Decodes an uplink payload: 1 plain `{dp: value}`; 2 `{"data_type":"event","data":{dp:{time,value}}}`;
 * 3 the same with `data.gateway` and `data.devices[{device_id, data}]`; 4 `{"data_type":"response","result":{task_id}}`.
 * Pure; never throws: malformed JSON, a non-object or an unknown data_type is `form: 'invalid'` with a reason.
 */
export function decodePayload(text: string, receivedAt: number): Decoded {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { form: 'invalid', reason: 'payload is not valid JSON' }
  }
  return decodeParsed(json, receivedAt)
}

/** decodePayload of a payload already parsed (HTTP ingest, whose request body is JSON). */
export function decodeParsed(json: unknown, receivedAt: number): Decoded {
  if (!isObject(json)) return { form: 'invalid', reason: 'payload is not a JSON object' }
  const type = json.data_type
  if (type === undefined)
    return { form: 'plain', values: plainValues(json, receivedAt), devices: [], problems: [] }
  if (type === 'event') return decodeEvent(json, receivedAt)
  if (type === 'response') return decodeResponse(json)
  return { form: 'invalid', reason: `unknown data_type ${JSON.stringify(type)}` }
}
