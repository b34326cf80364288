/**
 * Webhooks: the tenant's receivers (create, edit, delete, deliveries and their retry), and the delivery loop of
 * the outbox. Command and connection events are stored by the write that commits their change (same transaction,
 * see `outboxOf`); their bus events only wake the delivery loop and the live stream here. The alert events are
 * still stored from the bus: those announced in the same turn of the event loop in one transaction, with a pending
 * delivery per subscribed webhook. `start()` subscribes and starts the delivery loop; `close()` stores what is
 * queued and stops.
 */
import { randomBytes } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import type { AlertEvent, EventBus } from '../kernel/events.ts'
import { ApiError } from '../errors.ts'
import {
  OUTBOX_TYPES,
  outboxOf,
  type ListArgs,
  type MetaStore,
  type OutboxEvent,
  type OutboxInput,
  type OutboxType,
  type WebhookInput,
} from '../../store/types.ts'
import { isLinkLocal, webhookUrlProblem } from '../rules/webhooks.ts'
import { WebhookDelivery } from './webhook-delivery.ts'
import type { Actor } from './types.ts'
import { errorLog, type Logger } from '../kernel/log.ts'

/** What the stream learns of stored events: their tenant (a stored event, or only that). */
export type OutboxNotice = Pick<OutboxEvent, 'tenantID'>

export interface WebhookDeps {
  meta: MetaStore
  events: EventBus
  now?: () => number
  /** Days events (the live stream's and webhooks') and their delivery log are kept. */
  retentionDays?: number
  /** Addresses a host name resolves to (tests replace it). */
  resolve?: (host: string) => Promise<string[]>
  log?: (message: string, e?: unknown) => void
  /** Where the default `log` writes; default: the fallback logger. */
  logger?: Logger
}

/** What a caller sends to create or edit a webhook. */
export interface WebhookBody {
  url: string
  events?: OutboxType[]
  enable?: number
}

const defaultResolve = async (host: string) =>
  (await lookup(host, { all: true })).map((a) => a.address)

/** Event types stored by the transaction of their change (commands, connections): the bus only wakes readers. */
const STORED_WITH_CHANGE = ['command.status', 'device.online', 'device.offline'] as const
/** Event types this service stores from the bus. */
const FROM_BUS = OUTBOX_TYPES.filter(
  (t) => !(STORED_WITH_CHANGE as readonly string[]).includes(t),
) as Array<Exclude<OutboxType, (typeof STORED_WITH_CHANGE)[number]>>

export function webhookService(deps: WebhookDeps) {
  const { meta, events } = deps
  const now = deps.now ?? Date.now
  const resolve = deps.resolve ?? defaultResolve
  const log = deps.log ?? errorLog(deps.logger, 'webhooks')
  const retentionMs = (deps.retentionDays ?? 7) * 86_400_000
  const delivery = new WebhookDelivery({ meta, now, log, retentionMs })
  /**
   * Called with every batch of stored events (the live stream listens): the events this service stored, or a
   * notice naming the tenant of events another write stored (read them from the outbox).
   */
  const appended = new Set<(stored: readonly OutboxNotice[]) => void>()
  let queue: OutboxInput[] = []
  let flushing: Promise<void> | undefined

  const flush = async () => {
    while (queue.length) {
      const batch = queue
      queue = []
      try {
        const stored = await meta.webhooks.append(batch, now())
        delivery.wake()
        for (const f of appended) f(stored)
      } catch (e) {
        log(`storing ${batch.length} outbox event(s) failed`, e)
      }
    }
    flushing = undefined
  }
  const enqueue = (type: OutboxType) => (e: AlertEvent) => {
    queue.push(outboxOf(type, e, now()))
    flushing ??= new Promise<void>((r) => setImmediate(r)).then(flush)
  }
  const listeners = FROM_BUS.map((type) => [type, enqueue(type)] as const)
  /** Tenants with events stored by other writes since the last wake-up (one per turn of the event loop). */
  let stored = new Set<string>()
  let waking = false
  const onStored = (e: { tenantID: string }) => {
    stored.add(e.tenantID)
    if (waking) return
    waking = true
    setImmediate(() => {
      waking = false
      const tenants = [...stored].map((tenantID) => ({ tenantID }))
      stored = new Set()
      delivery.wake()
      for (const f of appended) f(tenants)
    })
  }

  /** Refuses a URL that is not http(s) or whose host is (or resolves to) a link-local address. */
  async function checkUrl(url: string) {
    const problem = webhookUrlProblem(url)
    if (problem) throw new ApiError('FORM_INVALID', { url: problem })
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
    let addresses: string[] = []
    try {
      addresses = await resolve(host)
    } catch {
      // a host that does not resolve now may later; its deliveries fail until it does
    }
    if (addresses.some(isLinkLocal))
      throw new ApiError('FORM_INVALID', { url: 'the host resolves to a link-local address' })
  }

  const inputOf = (body: WebhookBody): WebhookInput => ({
    url: body.url,
    events: body.events?.length ? [...new Set(body.events)] : [...OUTBOX_TYPES],
    enable: body.enable ?? 1,
  })

  return {
    list: (tenant: string, q: ListArgs) => meta.webhooks.list(tenant, q),
    get: (tenant: string, id: number) => meta.webhooks.get(tenant, id),

    /** Creates a webhook; the answer carries its generated secret (shown this once). */
    async create(a: Actor, body: WebhookBody) {
      await checkUrl(body.url)
      const secret = randomBytes(24).toString('hex')
      const hook = await meta.webhooks.create(
        a.tenant,
        { ...inputOf(body), secret, userIntID: a.userIntID },
        now(),
      )
      return { ...hook, secret }
    },

    async update(a: Actor, id: number, body: WebhookBody) {
      await meta.webhooks.get(a.tenant, id)
      await checkUrl(body.url)
      return meta.webhooks.update(a.tenant, id, inputOf(body), now())
    },

    remove: (a: Actor, ids: number[]) => meta.webhooks.remove(a.tenant, ids),
    deliveries: (tenant: string, id: number, q: ListArgs) =>
      meta.webhooks.deliveries(tenant, id, q),

    /** Re-queues one delivery now (whatever its state). */
    async retry(a: Actor, id: number, deliveryID: number) {
      const d = await meta.webhooks.retry(a.tenant, id, deliveryID, now())
      delivery.wake()
      return d
    },

    /** Calls `f` with every batch of events this node stored; answers the function that stops it. */
    onAppended(f: (stored: readonly OutboxNotice[]) => void): () => void {
      appended.add(f)
      return () => appended.delete(f)
    },

    start() {
      for (const [type, f] of listeners) events.on(type, f)
      for (const type of STORED_WITH_CHANGE) events.on(type, onStored)
      delivery.start()
    },

    /** Stops listening, stores what is queued, then stops the delivery loop (its claims are given back). */
    async close() {
      for (const [type, f] of listeners) events.off(type, f)
      for (const type of STORED_WITH_CHANGE) events.off(type, onStored)
      await flushing
      await delivery.close()
    },
  }
}
