/**
 * Webhooks: the tenant's receivers (create, edit, delete, deliveries and their retry), and the outbox writer that
 * stores every event webhooks and the live stream carry. Events announced in the same turn of the event loop are
 * stored in one transaction, with a pending delivery per subscribed webhook, off the path of the write that
 * announced them. `start()` subscribes and starts the delivery loop; `close()` stores what is queued and stops.
 */
import { randomBytes } from 'node:crypto'
import type { AlertEvent, CommandEvent, DeviceRef, EventBus } from '../kernel/events.ts'
import { ApiError } from '../errors.ts'
import {
  OUTBOX_TYPES,
  type ListArgs,
  type MetaStore,
  type OutboxEvent,
  type OutboxInput,
  type OutboxType,
  type WebhookInput,
} from '../../store/types.ts'
import { webhookUrlProblem } from '../rules/webhooks.ts'
import { WebhookDelivery } from './webhook-delivery.ts'
import {
  TargetRefused,
  checkedAddresses,
  systemResolve,
  webhookTransport,
  type Resolve,
} from './webhook-transport.ts'
import type { Actor } from './types.ts'
import { errorLog, fallbackLogger, type Logger } from '../kernel/log.ts'

export interface WebhookDeps {
  meta: MetaStore
  events: EventBus
  now?: () => number
  /** Days events (the live stream's and webhooks') and their delivery log are kept. */
  retentionDays?: number
  /** Addresses a host name resolves to (tests replace it); checked at save and at every delivery. */
  resolve?: Resolve
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private targets allowed (default true). */
  allowPrivate?: boolean
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

/** An event as the outbox stores it: its device, its time and its data (the payload without the tenant). */
function outboxOf(
  type: OutboxType,
  e: DeviceRef | CommandEvent | AlertEvent,
  now: number,
): OutboxInput {
  const { tenantID, ...rest } = e
  if ('kind' in e) {
    const { id, ...ref } = rest as Omit<DeviceRef, 'tenantID'>
    return {
      tenantID,
      type,
      time: now,
      deviceID: e.deviceID,
      data: JSON.stringify({ deviceIntID: id, ...ref }),
    }
  }
  return { tenantID, type, time: e.at, deviceID: e.deviceID, data: JSON.stringify(rest) }
}

export function webhookService(deps: WebhookDeps) {
  const { meta, events } = deps
  const now = deps.now ?? Date.now
  const resolve = deps.resolve ?? systemResolve
  const allowPrivate = deps.allowPrivate ?? true
  const log = deps.log ?? errorLog(deps.logger, 'webhooks')
  const retentionMs = (deps.retentionDays ?? 7) * 86_400_000
  const delivery = new WebhookDelivery({
    meta,
    now,
    log,
    retentionMs,
    transport: webhookTransport(resolve, allowPrivate),
    logger: (deps.logger ?? fallbackLogger()).child({ component: 'webhooks' }),
  })
  /** Called with every batch of stored events (the live stream listens). */
  const appended = new Set<(stored: readonly OutboxEvent[]) => void>()
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
  const enqueue = (type: OutboxType) => (e: DeviceRef | CommandEvent | AlertEvent) => {
    queue.push(outboxOf(type, e, now()))
    flushing ??= new Promise<void>((r) => setImmediate(r)).then(flush)
  }
  // alert events are written to the outbox by the alert store with their change: here they only wake the loop
  const listeners = OUTBOX_TYPES.map(
    (type) => [type, type.startsWith('alert.') ? () => delivery.wake() : enqueue(type)] as const,
  )

  /**
   * Refuses a URL that is not http(s) or whose host is (or resolves to) an address webhooks may not target. A
   * host that does not resolve now may later: it is accepted, and its deliveries fail until it does.
   */
  async function checkUrl(url: string) {
    const problem = webhookUrlProblem(url, allowPrivate)
    if (problem) throw new ApiError('FORM_INVALID', { url: problem })
    try {
      await checkedAddresses(resolve, new URL(url).hostname.replace(/^\[|\]$/g, ''), allowPrivate)
    } catch (e) {
      if (e instanceof TargetRefused) throw new ApiError('FORM_INVALID', { url: e.message })
    }
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
    onAppended(f: (stored: readonly OutboxEvent[]) => void): () => void {
      appended.add(f)
      return () => appended.delete(f)
    },

    start() {
      for (const [type, f] of listeners) events.on(type, f)
      delivery.start()
    },

    /** Stops listening, stores what is queued, then stops the delivery loop (its claims are given back). */
    async close() {
      for (const [type, f] of listeners) events.off(type, f)
      await flushing
      await delivery.close()
    },
  }
}
