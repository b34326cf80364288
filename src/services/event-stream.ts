/**
 * The live event stream, built for fan-out. One reader a node follows the outbox of every tenant (one query after
 * the last id seen, a page at a time, every POLL_MS and at once when an outbox event type is emitted on the bus):
 * the outbox is the shared table, so events stored by any node reach this node's clients. The `telemetry.stored`
 * events of this node become `telemetry` events (no id, not resumable). Each event is serialized once, as the SSE
 * frame every client it goes to shares, and routed by tenant, type and deviceID into each client's bounded queue
 * (stream-queue.ts): a client that falls behind is told `overflow` and ends, and never slows the others or ingest.
 * A client with a Last-Event-ID first reads what it missed from the table (its own pages, as its queue empties)
 * while the reader holds the newer events for it, then joins without gap or repeat.
 */
import type { EventBus, StoredValue } from '../kernel/events.ts'
import { OUTBOX_TYPES, type MetaStore, type OutboxEvent } from '../../store/types.ts'
import { eventBody } from './webhook-delivery.ts'
import { errorLog, type Logger } from '../kernel/log.ts'
import { PING_FRAME, StreamQueue, sseFrame } from './stream-queue.ts'

export const STREAM_TYPES = [...OUTBOX_TYPES, 'telemetry'] as const
const POLL_MS = 300
const PING_MS = 15_000
const PAGE = 500
/** How long a client that overflowed and does not read keeps its connection. */
const OVERFLOW_GRACE_MS = 30_000

export interface StreamRequest {
  tenant: string
  /** Types wanted (empty: all). */
  types: readonly string[]
  deviceID?: string
  /** Replay outbox events after this id first; otherwise only events stored from now on. */
  lastEventID?: number
  /** Ends the client's connection at once (a client that overflowed and stopped reading). */
  drop: () => void
}

export interface Subscription {
  /** The next bytes to write to the client (frames queued meanwhile, together); null when the stream ends. */
  next: () => Promise<Uint8Array | null>
  /** The client went away (or the caller ends it). */
  close: () => void
}

export interface EventStreamDeps {
  meta: MetaStore
  events: EventBus
  /** Bytes a client may fall behind by (queued beyond what its socket took) before it overflows. */
  queueBytes: number
  log?: (message: string, e?: unknown) => void
  /** Where the default `log` writes; default: the fallback logger. */
  logger?: Logger
}

interface Sub {
  tenant: string
  types: ReadonlySet<string> | null
  deviceID?: string
  queue: StreamQueue
  /** The last outbox event id queued. */
  cursor: number
  /** While catching up: the reader's newer events for this client, in id order. */
  held: Array<{ id: number; frame: Uint8Array }> | null
  heldBytes: number
}

const wants = (s: Sub, type: string, deviceID: string | null | undefined) =>
  (!s.types || s.types.has(type)) && (s.deviceID === undefined || s.deviceID === deviceID)

const outboxFrame = (e: OutboxEvent) => sseFrame(e.type, eventBody(e), e.id)

/** A tenant's telemetry as one frame per device and time: `{deviceID, time, values}`. */
function telemetryGroups(values: readonly StoredValue[]) {
  const groups = new Map<
    string,
    { deviceID: string; time: number; values: Record<string, unknown> }
  >()
  for (const v of values) {
    const key = `${v.deviceID}\u0000${v.time}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { deviceID: v.deviceID, time: v.time, values: {} }))
    g.values[v.dataPointID] = v.value
  }
  return groups.values()
}

/**
 * Routes one outbox event to a tenant's streams that want it: held for a stream still catching up (which falls
 * behind, overflowed, once what it holds and what it queued pass `queueBytes`), else queued after its cursor.
 */
function routeOutbox(subs: ReadonlySet<Sub>, e: OutboxEvent, queueBytes: number) {
  let frame: Uint8Array | undefined
  for (const s of subs) {
    if (!wants(s, e.type, e.deviceID)) continue
    frame ??= outboxFrame(e)
    if (s.queue.overflowed)
      s.queue.push(frame) // counted as missed
    else if (s.held) {
      s.held.push({ id: e.id, frame })
      s.heldBytes += frame.length
      if (s.heldBytes + s.queue.queued > queueBytes) {
        s.queue.overflow(s.held.length)
        s.held = null
      }
    } else if (e.id > s.cursor && s.queue.push(frame)) s.cursor = e.id
  }
}

/** Committed values to a tenant's streams that take telemetry: a frame per device and time, built once. */
function pushTelemetry(subs: ReadonlySet<Sub>, values: readonly StoredValue[]) {
  let any = false
  for (const s of subs) any ||= !s.types || s.types.has('telemetry')
  if (!any) return
  for (const g of telemetryGroups(values)) {
    let frame: Uint8Array | undefined
    for (const s of subs) {
      if (!wants(s, 'telemetry', g.deviceID)) continue
      frame ??= sseFrame('telemetry', JSON.stringify(g))
      s.queue.push(frame)
    }
  }
}

/** Reads the outbox events a resuming client missed, its own pages as its queue empties, then lets it join. */
async function catchUp(
  s: Sub,
  types: readonly string[],
  upTo: number,
  meta: EventStreamDeps['meta'],
  log: (message: string, e?: unknown) => void,
) {
  // fell behind while catching up: the events held for it are missed too (those of pages not read are not counted)
  const abandon = () => {
    s.queue.overflow(s.held?.length ?? 0)
    s.held = null
  }
  try {
    for (;;) {
      if (!(await s.queue.room())) return abandon()
      const page = await meta.webhooks.eventsAfter(
        s.tenant,
        s.cursor,
        { types, deviceID: s.deviceID },
        PAGE,
      )
      if (s.queue.overflowed) return abandon()
      for (const e of page) if (s.queue.push(outboxFrame(e))) s.cursor = e.id
      if (page.length < PAGE || s.cursor >= upTo) break
    }
    for (const h of s.held ?? []) {
      if (h.id > s.cursor && s.queue.push(h.frame)) s.cursor = h.id
    }
    s.held = null
  } catch (e) {
    log('stream catch-up failed', e)
    s.queue.end()
  }
}

/**
 * The node's one reader of the outbox: every event after the last one seen, a page at a time, each handed to
 * `route`. A read asked for while one runs runs again after it.
 */
function outboxReader(
  meta: MetaStore,
  log: (message: string, e?: unknown) => void,
  route: (e: OutboxEvent) => void,
) {
  let lastSeen = -1
  let reading = false
  let again = false
  let stopped = false

  /** Reads every outbox event after the last one seen, a page at a time, and routes each. */
  async function read() {
    if (lastSeen < 0) return // not started yet
    if (reading || stopped) {
      again = true
      return
    }
    reading = true
    try {
      do {
        again = false
        for (;;) {
          const page = await meta.webhooks.eventsSince(lastSeen, PAGE)
          for (const e of page) {
            route(e)
            lastSeen = e.id
          }
          if (page.length < PAGE || stopped) break
        }
      } while (again && !stopped)
    } catch (e) {
      log('stream read failed', e)
    } finally {
      reading = false
    }
  }

  return {
    read,
    /** The id of the last outbox event read (-1 before the start). */
    get lastSeen() {
      return lastSeen
    },
    /** Reads from after `id` on, unless events after it were read already. */
    startAfter(id: number) {
      lastSeen = Math.max(lastSeen, id)
    },
    stop() {
      stopped = true
    },
  }
}

/** A client's stream: its bounded queue, its cursor and, resuming, room for the newer events held meanwhile. */
function newSub(
  req: StreamRequest,
  outboxTypes: readonly string[],
  cursor: number,
  resume: boolean,
  queueBytes: number,
  onEnd: (s: Sub) => void,
): Sub {
  const s: Sub = {
    tenant: req.tenant,
    types: req.types.length ? new Set(req.types) : null,
    deviceID: req.deviceID,
    cursor,
    held: resume ? [] : null,
    heldBytes: 0,
    queue: new StreamQueue({
      limit: queueBytes,
      graceMs: OVERFLOW_GRACE_MS,
      drop: req.drop,
      overflowInfo: () => (outboxTypes.length ? { lastEventID: s.cursor } : {}),
      onEnd: () => onEnd(s),
    }),
  }
  return s
}

/** A ping frame to every stream that has not overflowed, every PING_MS. */
function pingAll(byTenant: ReadonlyMap<string, ReadonlySet<Sub>>) {
  for (const subs of byTenant.values())
    for (const s of subs) if (!s.queue.overflowed) s.queue.push(PING_FRAME)
}

export function eventStreamService(deps: EventStreamDeps) {
  const { meta, events } = deps
  const log = deps.log ?? errorLog(deps.logger, 'stream')
  const byTenant = new Map<string, Set<Sub>>()
  let ready: Promise<void> | undefined
  let poll: ReturnType<typeof setInterval> | undefined
  let ping: ReturnType<typeof setInterval> | undefined

  const subsOf = (tenant: string) => byTenant.get(tenant)

  const reader = outboxReader(meta, log, (e) => {
    const subs = subsOf(e.tenantID)
    if (subs) routeOutbox(subs, e, deps.queueBytes)
  })
  const wake = () => void reader.read()
  /**
   * An outbox event was stored here: read at once only when this node streams to its tenant (otherwise the poll
   * keeps `lastSeen` near the newest event, and a new subscription starts after the newest stored id anyway).
   */
  const onOutbox = (e: { tenantID: string }) => {
    if (byTenant.has(e.tenantID)) wake()
  }

  const onStored = (e: { tenantID: string; values: readonly StoredValue[] }) => {
    const subs = subsOf(e.tenantID)
    if (subs) pushTelemetry(subs, e.values)
  }

  const onEnd = (s: Sub) => {
    const subs = subsOf(s.tenant)
    subs?.delete(s)
    if (subs && !subs.size) byTenant.delete(s.tenant)
  }

  async function subscribe(req: StreamRequest): Promise<Subscription> {
    await ready
    const outboxTypes = req.types.length
      ? OUTBOX_TYPES.filter((t) => req.types.includes(t))
      : [...OUTBOX_TYPES]
    const resume = req.lastEventID !== undefined && outboxTypes.length > 0
    // reads are skipped while this node has no stream of the tenant, so `lastSeen` may lag: start after the newest
    const cursor = resume
      ? req.lastEventID!
      : Math.max(reader.lastSeen, await meta.webhooks.lastEventID())
    const s = newSub(req, outboxTypes, cursor, resume, deps.queueBytes, onEnd)
    let subs = subsOf(req.tenant)
    if (!subs) byTenant.set(req.tenant, (subs = new Set()))
    subs.add(s)
    if (resume) void catchUp(s, outboxTypes, reader.lastSeen, meta, log)
    return { next: () => s.queue.next(), close: () => s.queue.end() }
  }

  return {
    subscribe,
    /** Streams open on this node now (all tenants). */
    clients(): number {
      let n = 0
      for (const subs of byTenant.values()) n += subs.size
      return n
    },
    /** Starts the reader from the newest event stored. */
    start() {
      ready = meta.webhooks.lastEventID().then((id) => reader.startAfter(id))
      ready.catch((e) => log('stream start failed', e))
      events.on('telemetry.stored', onStored)
      for (const t of OUTBOX_TYPES) events.on(t, onOutbox)
      poll = setInterval(wake, POLL_MS).unref()
      ping = setInterval(() => pingAll(byTenant), PING_MS).unref()
    },
    /** Ends every subscription (their streams close) and stops reading. */
    close() {
      reader.stop()
      clearInterval(poll)
      clearInterval(ping)
      events.off('telemetry.stored', onStored)
      for (const t of OUTBOX_TYPES) events.off(t, onOutbox)
      for (const subs of [...byTenant.values()]) for (const s of [...subs]) s.queue.end()
    },
  }
}
