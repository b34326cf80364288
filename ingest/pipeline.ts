import type { Config } from '../src/kernel/config.ts'
import type { DomainEvents, EventBus } from '../src/kernel/events.ts'
import type { IngestObserver, StoreKind } from '../src/kernel/metrics.ts'
import type { EventInput, IngestDevice, MetaStore } from '../store/types.ts'
import type { TelemetryPoint, TelemetryStore } from '../store/telemetry.ts'
import type {
  DeviceIdentity,
  DeviceInbox,
  Pipeline,
  Rejection,
  Uplink,
  UplinkOutcome,
} from './types.ts'
import { isReservedTopic, StorageFull } from './types.ts'
import type { DiskGuard } from '../src/kernel/disk.ts'
import { decodePayload, decodeParsed, type ChildValues, type RawValues } from './decode.ts'
import { checkValue, isPlainNumber } from './values.ts'
import { ModelCache, type ProductModel, type StreamModel } from './model.ts'
import { normalizeTopic } from '../src/kernel/topics.ts'
import { UplinkBatchWriter } from './writer.ts'
import { Admission } from './admission.ts'
import { LatestValuesCache } from './latest.ts'
import { LastSeenTracker } from './last-seen.ts'

export interface PipelineDeps {
  config: Config
  meta: MetaStore
  telemetry: TelemetryStore
  bus: EventBus
  /** Told about each batch written and each rejection (the service's metrics). */
  observer?: IngestObserver
  /** The clock of lastSeenAt (tests). */
  now?: () => number
  /** Where a failed lastSeenAt write is told. */
  onError?: (what: string, e: unknown) => void
  /** The free-space guard of DATA_DIR: while it says full, new uplinks are refused (StorageFull). */
  disk?: Pick<DiskGuard, 'full' | 'waitForSpace'>
  /**
   * Where messages on reserved topics (`state/`, `ota/`) go; without it they are refused as topics without a data
   * stream.
   */
  inbox?: DeviceInbox
}

/** Payloads larger than this are not decoded: the event records the rejection. */
export const MAX_PAYLOAD_BYTES = 256 * 1024
/** Event rows keep at most this much of the raw payload, then a marker. */
export const EVENT_PAYLOAD_BYTES = 64 * 1024
export const TRUNCATED_MARKER = '...[truncated]'
const MAX_REASON = 2000

type Sender = Pick<
  DeviceIdentity,
  'id' | 'tenantID' | 'deviceID' | 'deviceName' | 'productIntID' | 'productID'
>

/** The values of one device of an uplink, checked: what to store, what not and why, notes (limits). */
interface DeviceResult {
  points: TelemetryPoint[]
  rejected: Rejection[]
  notes: string[]
}

const newResult = (): DeviceResult => ({ points: [], rejected: [], notes: [] })

/** The raw payload as event text, cut at EVENT_PAYLOAD_BYTES with a marker. */
export function eventPayload(payload: Buffer | string): string {
  if (typeof payload === 'string') {
    if (payload.length <= EVENT_PAYLOAD_BYTES / 4) return payload
    payload = Buffer.from(payload)
  }
  if (payload.length <= EVENT_PAYLOAD_BYTES) return payload.toString('utf8')
  return payload.subarray(0, EVENT_PAYLOAD_BYTES).toString('utf8') + TRUNCATED_MARKER
}

function reasonOf(r: DeviceResult): string | null {
  if (!r.rejected.length && !r.notes.length) return null // every clean uplink: no arrays made
  const parts = [...r.rejected.map((x) => x.message), ...r.notes]
  if (!parts.length) return null
  const text = parts.join('; ')
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}${TRUNCATED_MARKER}` : text
}

function eventOf(d: Sender, uplink: Uplink, payload: string, r: DeviceResult): EventInput {
  return {
    tenantID: d.tenantID,
    deviceIntID: d.id,
    deviceID: d.deviceID,
    deviceName: d.deviceName,
    productIntID: d.productIntID,
    topic: uplink.topic,
    payload,
    IP: uplink.ip,
    status: r.rejected.length ? 0 : 1,
    reason: reasonOf(r),
    msgTime: uplink.receivedAt,
  }
}

/**
 * Checks one device's values against its product model: the data point must exist, belong to `stream` (when
 * given) and fit its pointDataType. Values outside a point's limits are stored, with a note.
 */
function checkValues(
  d: Sender,
  model: ProductModel,
  stream: StreamModel | undefined,
  values: RawValues,
  out: DeviceResult,
) {
  // no closure a value: the hot path of every uplink (tsx names each closure it creates, which costs)
  const { ids, times } = values
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!
    const value = values.values[i]
    const point = model.points.get(id)
    if (!point) rejectValue(out, d, id, 'DATA_NOT_FOUND', `${id}: no such data point`)
    else if (stream && !stream.dataPointIDs.has(id))
      rejectValue(
        out,
        d,
        id,
        'DATA_NOT_FOUND',
        `${id}: not a data point of the stream on topic ${stream.topic}`,
      )
    else {
      // the common value, a number for a double point without limits, needs no check object
      const c = isPlainNumber(point, value) ? undefined : checkValue(point, value)
      if (c && !c.ok) rejectValue(out, d, id, 'FORM_INVALID', `${id}: ${c.reason}`)
      else {
        if (c?.violation) out.notes.push(`${id}: ${JSON.stringify(c.value)} ${c.violation}`)
        out.points.push({
          tenantID: d.tenantID,
          productID: d.productID,
          deviceID: d.deviceID,
          dataPointID: id,
          time: times[i]!,
          value: c ? c.value : (value as number),
        })
      }
    }
  }
}

function rejectValue(
  out: DeviceResult,
  d: Sender,
  dataPointID: string,
  errorCode: string,
  message: string,
) {
  out.rejected.push({ dataPointID, deviceID: d.deviceID, errorCode, message })
}

/**
 * A clock of receipt times that strictly increase per device (by a millisecond when two uplinks arrive in the
 * same one), so plain values, timed at receipt, of two quick uplinks never overwrite each other. Bounded: past
 * `limit` devices it forgets them all (collisions only matter within a millisecond).
 */
export function receiptClock(limit = 200_000) {
  const lastReceipt = new Map<number, number>()
  return (deviceIntID: number, t: number): number => {
    const last = lastReceipt.get(deviceIntID)
    const time = last !== undefined && t <= last ? last + 1 : t
    if (lastReceipt.size >= limit) lastReceipt.clear()
    lastReceipt.set(deviceIntID, time)
    return time
  }
}

/** The devices (record ids, once each, in event order) whose committed uplink events `telemetry.stored` names. */
export function storedDeviceIDs(events: readonly EventInput[]): number[] {
  if (events.length === 1) {
    const id = events[0]!.deviceIntID ?? 0
    return id > 0 ? [id] : []
  }
  return [...new Set(events.map((e) => e.deviceIntID ?? 0).filter((id) => id > 0))]
}

/** A device's answer to a command (payload form 4) as `device.response` announces it; a code only if finite. */
export function commandAnswer(
  d: Sender,
  decoded: { taskID: string; code: unknown },
  payload: string,
): DomainEvents['device.response'][0] {
  const code =
    typeof decoded.code === 'number' && Number.isFinite(decoded.code) ? decoded.code : null
  return {
    tenantID: d.tenantID,
    deviceIntID: d.id,
    deviceID: d.deviceID,
    taskID: decoded.taskID,
    code,
    payload,
  }
}

/** A device's result holding one rejection only. */
function rejectedResult(deviceID: string, errorCode: string, message: string): DeviceResult {
  const r = newResult()
  r.rejected.push({ deviceID, errorCode, message })
  return r
}

/** Form 3: each child's values against the child's product (its stream on the same topic, when it has one). */
async function childResults(
  models: Pick<ModelCache, 'product' | 'childrenOf'>,
  uplink: Uplink,
  decoded: { devices: ChildValues[] },
  own: DeviceResult,
) {
  const results: Array<{ child: IngestDevice; raw: string; r: DeviceResult }> = []
  if (!decoded.devices.length) return results
  const gateway = uplink.device
  const known =
    gateway.kind === 'gateway'
      ? await models.childrenOf(gateway.id)
      : new Map<string, IngestDevice>()
  for (const entry of decoded.devices) {
    const child = known.get(entry.deviceID)
    if (!child) {
      const why =
        gateway.kind === 'gateway'
          ? 'not a device of this gateway'
          : 'only a gateway may send for other devices'
      own.rejected.push({
        deviceID: entry.deviceID,
        errorCode: 'DATA_NOT_FOUND',
        message: `devices: ${entry.deviceID} is ${why}`,
      })
      continue
    }
    const r = newResult()
    r.rejected.push(...entry.problems)
    const model = await models.product(child.productIntID)
    checkValues(child, model, model.streams.get(normalizeTopic(uplink.topic)), entry.values, r)
    results.push({ child, raw: entry.raw, r })
  }
  return results
}

/** An uplink refused whole: its event, with the reason, and nothing to store. */
function refused(uplink: Uplink, payload: string, errorCode: string, message: string): Assessed {
  const r = rejectedResult(uplink.device.deviceID, errorCode, message)
  return {
    points: [],
    events: [eventOf(uplink.device, uplink, payload, r)],
    rejected: r.rejected,
    children: [],
  }
}

/** What one uplink amounts to before anything is written: a device's answer to a command, or values. */
export type Assessed =
  | { answer: DomainEvents['device.response'][0]; events: EventInput[] }
  | {
      answer?: undefined
      points: TelemetryPoint[]
      events: EventInput[]
      rejected: Rejection[]
      /** The child devices (form 3) whose values it carried: they were seen too. */
      children: number[]
    }

/**
 * The payload's size in bytes when it is over MAX_PAYLOAD_BYTES, else undefined. A text is counted in UTF-8 only
 * when it could be over (a UTF-16 unit takes at most 3 bytes).
 */
export function bytesOverLimit(payload: Buffer | string): number | undefined {
  if (typeof payload !== 'string')
    return payload.length > MAX_PAYLOAD_BYTES ? payload.length : undefined
  if (payload.length * 3 <= MAX_PAYLOAD_BYTES) return undefined
  const bytes = Buffer.byteLength(payload)
  return bytes > MAX_PAYLOAD_BYTES ? bytes : undefined
}

/** An uplink's payload as text for decoding: the event's text when that is all of it (no second conversion). */
function payloadText(raw: Buffer | string, eventText: string): string {
  if (typeof raw === 'string') return raw
  return raw.length <= EVENT_PAYLOAD_BYTES ? eventText : raw.toString('utf8')
}

/**
 * Decodes an uplink (timed at its receipt) and checks its values, its children's too, against their product
 * models: the points to store, one event per device, what was refused and why. Writes nothing. Answers at once
 * (no promise) when the product's model is cached and the uplink names no child devices: every uplink's path.
 */
export function assessUplink(
  models: Pick<ModelCache, 'product' | 'childrenOf'> & Partial<Pick<ModelCache, 'cachedProduct'>>,
  uplink: Uplink,
): Assessed | Promise<Assessed> {
  const d = uplink.device
  const payload = eventPayload(uplink.payload)
  const over = bytesOverLimit(uplink.payload)
  if (over !== undefined)
    return refused(
      uplink,
      payload,
      'PAYLOAD_TOO_LARGE',
      `payload of ${over} bytes is over the limit of ${MAX_PAYLOAD_BYTES}`,
    )
  const decoded =
    uplink.parsed === undefined
      ? decodePayload(payloadText(uplink.payload, payload), uplink.receivedAt)
      : decodeParsed(uplink.parsed, uplink.receivedAt)
  if (decoded.form === 'invalid') return refused(uplink, payload, 'FORM_INVALID', decoded.reason)
  if (decoded.form === 'response')
    return {
      answer: commandAnswer(d, decoded, payload),
      events: [eventOf(d, uplink, payload, newResult())],
    }
  const model = models.cachedProduct?.(d.productIntID)
  if (model && !decoded.devices.length) return assessValues(models, uplink, payload, decoded, model)
  return (async () =>
    assessValues(
      models,
      uplink,
      payload,
      decoded,
      model ?? (await models.product(d.productIntID)),
    ))()
}

type ValuesDecoded = Extract<ReturnType<typeof decodePayload>, { values: unknown }>

/** assessUplink once the sender's model is known: a promise only when there are child devices to look up. */
function assessValues(
  models: Pick<ModelCache, 'product' | 'childrenOf'>,
  uplink: Uplink,
  payload: string,
  decoded: ValuesDecoded,
  model: ProductModel,
): Assessed | Promise<Assessed> {
  const d = uplink.device
  const stream = model.streams.get(normalizeTopic(uplink.topic))
  if (!stream)
    return refused(uplink, payload, 'DATA_NOT_FOUND', `no data stream for topic ${uplink.topic}`)
  const own = newResult()
  for (const p of decoded.problems) own.rejected.push(p)
  checkValues(d, model, stream, decoded.values, own)
  if (!decoded.devices.length)
    return {
      points: own.points,
      events: [eventOf(d, uplink, payload, own)],
      rejected: own.rejected,
      children: [],
    }
  return childResults(models, uplink, decoded, own).then((kids) => ({
    points: [...own.points, ...kids.flatMap((k) => k.r.points)],
    events: [
      eventOf(d, uplink, payload, own),
      ...kids.map((k) => eventOf(k.child, uplink, eventPayload(k.raw), k.r)),
    ],
    rejected: [...own.rejected, ...kids.flatMap((k) => k.r.rejected)],
    children: kids.map((k) => k.child.id),
  }))
}

/** The telemetry store's write, timed into the observer's batch metric when there is one. */
function observedWrite(
  telemetry: TelemetryStore,
  observer: IngestObserver | undefined,
  store: StoreKind,
) {
  return async (p: readonly TelemetryPoint[]) => {
    if (!observer) return telemetry.write(p)
    const started = performance.now()
    await telemetry.write(p)
    observer.batchWritten(store, p.length, (performance.now() - started) / 1000)
  }
}

/** The batching writer of points and events, metered into the observer, telling `onCommitted` each batch. */
function uplinkWriter(
  { config, meta, telemetry, observer }: PipelineDeps,
  onCommitted: (points: readonly TelemetryPoint[]) => void,
  onSettled: () => void,
) {
  const store: StoreKind = config.INFLUX_URL ? 'influx' : 'embedded'
  return new UplinkBatchWriter(
    {
      writePoints: observedWrite(telemetry, observer, store),
      writeEvents: (e) => meta.logs.addEvents(e),
    },
    {
      batchPoints: config.INGEST_BATCH_POINTS,
      queuePoints: config.INGEST_QUEUE_POINTS,
      lingerMs: config.INGEST_LINGER_MS,
      // at one message in flight a device waits for its PUBACK, and batches stay under INGEST_BATCH_POINTS: a
      // quarter batch goes out beside the flush ahead (alternated bench runs: 8 of 10 faster, ~3-7%)
      parallelPoints: Math.max(1, Math.floor(config.INGEST_BATCH_POINTS / 4)),
      onCommitted,
      onSettled,
    },
  )
}

/**
 * An uplink's writes committed: its refusals counted, its values announced (`telemetry.stored`; listeners, the
 * alerts and the live stream, only queue work), and its outcome.
 */
function committed(
  { bus, observer }: PipelineDeps,
  points: TelemetryPoint[],
  events: EventInput[],
  rejected: Rejection[],
): UplinkOutcome {
  if (observer) for (const r of rejected) observer.rejected(r.errorCode, 1)
  if (points.length) {
    const deviceIntIDs = storedDeviceIDs(events)
    bus.emit('telemetry.stored', { tenantID: points[0]!.tenantID, deviceIntIDs, values: points })
  }
  return { accepted: points.length, rejected }
}

/** What the stages of an admitted uplink share, built once by `createPipeline`. */
interface Stages {
  deps: PipelineDeps
  models: ModelCache
  writer: UplinkBatchWriter
  lastSeen: LastSeenTracker
  receiptTime: ReturnType<typeof receiptClock>
  /** Uplinks being decoded and checked (their model may take a store read): close() lets them reach the writer. */
  assessing: Set<Promise<unknown>>
}

/**
 * Writes the uplink's events and points; resolves with the outcome once committed. No async function on this
 * path: under load thousands of uplinks wait for their flush, each holding what its promises hold.
 */
function commitUplink(
  s: Stages,
  points: TelemetryPoint[],
  events: EventInput[],
  rejected: Rejection[],
): Promise<UplinkOutcome> {
  let written: Promise<void>
  try {
    written = s.writer.submit(points, events)
  } catch (e) {
    return Promise.reject(e) // Backpressure
  }
  return written.then(() => committed(s.deps, points, events, rejected))
}

/** An uplink the writer has room for: decoded, checked and queued for its flush. */
function admitUplink(s: Stages, given: Uplink): Promise<UplinkOutcome> {
  const uplink = { ...given, receivedAt: s.receiptTime(given.device.id, given.receivedAt) }
  let assessed: Assessed | Promise<Assessed>
  try {
    assessed = assessUplink(s.models, uplink)
  } catch (e) {
    return Promise.reject(e)
  }
  return assessed instanceof Promise ? assessedLater(s, assessed) : storeAssessed(s, assessed)
}

/** An uplink whose model (or child devices) took a store read. */
async function assessedLater(s: Stages, assessed: Promise<Assessed>): Promise<UplinkOutcome> {
  s.assessing.add(assessed)
  let a: Assessed
  try {
    a = await assessed
  } finally {
    s.assessing.delete(assessed)
  }
  return storeAssessed(s, a)
}

function storeAssessed(s: Stages, a: Assessed): Promise<UplinkOutcome> {
  if (a.answer) {
    // a device answering a command: the command service records the outcome once the event is committed
    const answer = a.answer
    return commitUplink(s, [], a.events, []).then((outcome) => {
      s.deps.bus.emit('device.response', answer)
      return outcome
    })
  }
  for (const id of a.children) s.lastSeen.seen(id)
  return commitUplink(s, a.points, a.events, a.rejected)
}

/** An uplink refused before decoding: only its event, with the reason. */
function refuseUplink(
  s: Stages,
  uplink: Uplink,
  errorCode: string,
  message: string,
): Promise<UplinkOutcome> {
  if (s.deps.disk?.full) return Promise.reject(new StorageFull())
  const d = uplink.device
  s.lastSeen.seen(d.id)
  const r = rejectedResult(d.deviceID, errorCode, message)
  return commitUplink(s, [], [eventOf(d, uplink, eventPayload(uplink.payload), r)], r.rejected)
}

/**
 * A device's message on a reserved topic: the inbox commits or answers it; a refusal is recorded as the message's
 * event, with the reason.
 */
function reservedUplink(s: Stages, inbox: DeviceInbox, uplink: Uplink): Promise<UplinkOutcome> {
  return inbox
    .receive(uplink)
    .then((refusal) =>
      refusal
        ? refuseUplink(s, uplink, refusal.errorCode, refusal.message)
        : { accepted: 0, rejected: [] },
    )
}

/** Decode → check against the product model → batching writer → resolves when values and events are committed. */
export function createPipeline(deps: PipelineDeps): Pipeline {
  const { config, meta, telemetry, bus } = deps
  const models = new ModelCache(meta.ingest, bus)
  const latest = new LatestValuesCache(telemetry)
  const offLatest = latest.listen(bus)
  const lastSeen = new LastSeenTracker(meta.connections, {
    flushIntervalMs: config.LAST_SEEN_FLUSH_MS,
    now: deps.now,
    onError: (e) => deps.onError?.('lastSeenAt write failed', e),
  })
  const writer = uplinkWriter(
    deps,
    (points) => latest.update(points),
    () => queueMicrotask(() => admission.release()),
  )
  const stages: Stages = {
    deps,
    models,
    writer,
    lastSeen,
    receiptTime: receiptClock(),
    assessing: new Set(),
  }
  // an uplink is decoded once the writer holds fewer than four batches (two being written, two on their way);
  // till then it waits as it arrived, at most a quarter of INGEST_QUEUE_POINTS of them
  const decodeBelow = 4 * config.INGEST_BATCH_POINTS
  const admission = new Admission<Uplink, UplinkOutcome>(
    (given) => admitUplink(stages, given),
    () => writer.size < decodeBelow,
    Math.max(1, Math.floor(config.INGEST_QUEUE_POINTS / 4)),
  )

  function submit(given: Uplink): Promise<UplinkOutcome> {
    if (deps.disk?.full) return Promise.reject(new StorageFull())
    lastSeen.seen(given.device.id)
    if (deps.inbox && isReservedTopic(normalizeTopic(given.topic)))
      return reservedUplink(stages, deps.inbox, given)
    return admission.run(given)
  }

  /** Lets every waiting uplink in, a flush at a time. */
  async function admitAll() {
    for (admission.release(); admission.waiting; admission.release()) await writer.flush()
  }

  return {
    get saturated() {
      return writer.saturated || admission.saturated
    },
    get storageFull() {
      return deps.disk?.full ?? false
    },
    spaceFreed: () => deps.disk?.waitForSpace() ?? Promise.resolve(),
    get queued() {
      return writer.size
    },
    submit,
    refuse: (uplink, errorCode, message) => refuseUplink(stages, uplink, errorCode, message),
    latest: (tenantID, deviceID) => latest.get(tenantID, deviceID),
    latestOf: (tenantID, deviceIDs) => latest.getMany(tenantID, deviceIDs),
    async drained() {
      await admission.drained()
      await writer.drained()
    },
    async flush() {
      await admitAll()
      await writer.flush()
    },
    async close() {
      // uplinks submitted before close are committed with the rest, not refused half-way
      await admitAll()
      while (stages.assessing.size) await Promise.allSettled([...stages.assessing])
      await writer.close()
      await lastSeen.close()
      models.close()
      offLatest()
    },
  }
}
