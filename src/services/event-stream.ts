/**
 * The live event stream's subscriptions: each follows the outbox of its tenant (by event id, so nothing is sent
 * twice and events stored by other nodes arrive too: it looks again every second, and at once when this node
 * stores events) and the `telemetry.stored` events of this node (no id; not resumable). Filters: event types and
 * one deviceID. Each subscription pings every 15 s; `close()` ends every subscription.
 */
import type { EventBus, StoredValue } from '../kernel/events.ts'
import { OUTBOX_TYPES, type MetaStore, type OutboxEvent } from '../../store/types.ts'
import { eventBody } from './webhook-delivery.ts'
import { errorLog, type Logger } from '../kernel/log.ts'

export const STREAM_TYPES = [...OUTBOX_TYPES, 'telemetry'] as const
const POLL_MS = 1000
const PING_MS = 15_000
const PAGE = 500
/** Telemetry messages a subscriber may have unwritten before further ones are dropped (a slow client). */
const MAX_BACKLOG = 1000

/** One message of the stream: `id` only for outbox events. */
export interface StreamMessage {
  id?: string
  event: string
  data: string
}

export interface StreamSink {
  send(m: StreamMessage): Promise<void>
  ping(): Promise<void>
}

export interface StreamRequest {
  tenant: string
  /** Types wanted (empty: all). */
  types: readonly string[]
  deviceID?: string
  /** Replay outbox events after this id first; otherwise only events stored from now on. */
  lastEventID?: number
  sink: StreamSink
}

export interface Subscription {
  /** Resolves once the subscription ended (closed by the caller or by the service). */
  closed: Promise<void>
  close(): void
}

export interface EventStreamDeps {
  meta: MetaStore
  events: EventBus
  /** Subscribes to events this node stored (at least their tenants); answers the function that stops it. */
  onAppended(f: (stored: ReadonlyArray<Pick<OutboxEvent, 'tenantID'>>) => void): () => void
  log?: (message: string, e?: unknown) => void
  /** Where the default `log` writes; default: the fallback logger. */
  logger?: Logger
}

interface Sub {
  tenant: string
  wants: (type: string) => boolean
  deviceID?: string
  pump(): void
  telemetry(m: StreamMessage): void
  close(): void
}

/** Telemetry of one event as stream messages: one per device and time, `{deviceID, time, values}`. */
function telemetryMessages(values: readonly StoredValue[], deviceID?: string): StreamMessage[] {
  const groups = new Map<
    string,
    { deviceID: string; time: number; values: Record<string, unknown> }
  >()
  for (const v of values) {
    if (deviceID !== undefined && v.deviceID !== deviceID) continue
    const key = `${v.deviceID}\u0000${v.time}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { deviceID: v.deviceID, time: v.time, values: {} }))
    g.values[v.dataPointID] = v.value
  }
  return [...groups.values()].map((g) => ({ event: 'telemetry', data: JSON.stringify(g) }))
}

export function eventStreamService(deps: EventStreamDeps) {
  const { meta, events } = deps
  const log = deps.log ?? errorLog(deps.logger, 'stream')
  const subs = new Set<Sub>()
  let stopAppended: (() => void) | undefined

  const onStored = (e: { tenantID: string; values: readonly StoredValue[] }) => {
    for (const s of subs) {
      if (s.tenant !== e.tenantID || !s.wants('telemetry')) continue
      for (const m of telemetryMessages(e.values, s.deviceID)) s.telemetry(m)
    }
  }

  async function subscribe(req: StreamRequest): Promise<Subscription> {
    const outboxTypes = req.types.length
      ? OUTBOX_TYPES.filter((t) => req.types.includes(t))
      : [...OUTBOX_TYPES]
    const wants = (type: string) => !req.types.length || req.types.includes(type)
    let lastID = req.lastEventID ?? (await meta.webhooks.lastEventID())
    let ended = false
    let pumping = false
    let again = false
    let backlog = 0
    let end!: () => void
    const closed = new Promise<void>((r) => (end = r))

    const drain = async () => {
      for (;;) {
        const batch = await meta.webhooks.eventsAfter(
          req.tenant,
          lastID,
          { types: outboxTypes, deviceID: req.deviceID },
          PAGE,
        )
        for (const e of batch) {
          if (ended) return
          await req.sink.send({ id: String(e.id), event: e.type, data: eventBody(e) })
          lastID = e.id
        }
        if (batch.length < PAGE) return
      }
    }
    const sub: Sub = {
      tenant: req.tenant,
      wants,
      deviceID: req.deviceID,
      pump() {
        if (ended || !outboxTypes.length) return
        if (pumping) {
          again = true
          return
        }
        pumping = true
        void drain()
          .catch((e) => {
            log('stream read failed', e)
            sub.close()
          })
          .finally(() => {
            pumping = false
            if (again) {
              again = false
              sub.pump()
            }
          })
      },
      telemetry(m) {
        if (ended || backlog >= MAX_BACKLOG) return
        backlog++
        void req.sink
          .send(m)
          .catch(() => sub.close())
          .finally(() => backlog--)
      },
      close() {
        if (ended) return
        ended = true
        clearInterval(poll)
        clearInterval(ping)
        subs.delete(sub)
        end()
      },
    }
    const poll = setInterval(() => sub.pump(), POLL_MS).unref()
    const ping = setInterval(() => void req.sink.ping().catch(() => sub.close()), PING_MS).unref()
    subs.add(sub)
    sub.pump()
    return { closed, close: () => sub.close() }
  }

  return {
    subscribe,
    start() {
      events.on('telemetry.stored', onStored)
      stopAppended = deps.onAppended((stored) => {
        const tenants = new Set(stored.map((e) => e.tenantID))
        for (const s of subs) if (tenants.has(s.tenant)) s.pump()
      })
    },
    /** Ends every subscription (their streams close) and stops listening. */
    close() {
      events.off('telemetry.stored', onStored)
      stopAppended?.()
      for (const s of [...subs]) s.close()
    },
  }
}
