/**
 * Webhooks: the tenant's receivers (create, edit, delete, deliveries and their retry), and the delivery loop of
 * the outbox. Every outbox event is stored by the write that commits its change, in the same transaction (commands,
 * connections, alerts: see `outboxOf` and the stores); the bus events that announce them after the commit only wake
 * the delivery loop here. `start()` subscribes and starts the delivery loop; `close()` stops it.
 */
import { randomBytes } from 'node:crypto'
import type { EventBus } from '../kernel/events.ts'
import { Invalid } from '../kernel/errors.ts'
import {
  OUTBOX_TYPES,
  type ListArgs,
  type MetaStore,
  type OutboxType,
  type WebhookInput,
} from '../../store/types.ts'
import { webhookUrlProblem } from '../rules/webhooks.ts'
import { eventBody, WebhookDelivery } from './webhook-delivery.ts'
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

/**
 * Refuses a URL that is not http(s) or whose host is (or resolves to) an address webhooks may not target. A
 * host that does not resolve now may later: it is accepted, and its deliveries fail until it does.
 */
async function checkedUrl(url: string, resolve: Resolve, allowPrivate: boolean) {
  const problem = webhookUrlProblem(url, allowPrivate)
  if (problem) throw new Invalid({ url: problem })
  try {
    await checkedAddresses(resolve, new URL(url).hostname.replace(/^\[|\]$/g, ''), allowPrivate)
  } catch (e) {
    if (e instanceof TargetRefused) throw new Invalid({ url: e.message })
  }
}

/** A body as the store takes it: every event type when it names none, enabled unless it says otherwise. */
const inputOf = (body: WebhookBody): WebhookInput => ({
  url: body.url,
  events: body.events?.length ? [...new Set(body.events)] : [...OUTBOX_TYPES],
  enable: body.enable ?? 1,
})

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
  /** The bus events announcing stored outbox events wake the loop, once per turn of the event loop. */
  let waking = false
  const wake = () => {
    if (waking) return
    waking = true
    setImmediate(() => {
      waking = false
      delivery.wake()
    })
  }

  const checkUrl = (url: string) => checkedUrl(url, resolve, allowPrivate)

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

    /** One delivery with the body it sends (`{id, type, time, tenantID, data}`, as signed). */
    async delivery(tenant: string, id: number, deliveryID: number) {
      const { record, event } = await meta.webhooks.delivery(tenant, id, deliveryID)
      return { ...record, body: eventBody(event) }
    },

    /** Re-queues one delivery now (whatever its state). */
    async retry(a: Actor, id: number, deliveryID: number) {
      const d = await meta.webhooks.retry(a.tenant, id, deliveryID, now())
      delivery.wake()
      return d
    },

    start() {
      for (const type of OUTBOX_TYPES) events.on(type, wake)
      delivery.start()
    },

    /** Stops listening, then stops the delivery loop (its claims are given back). */
    async close() {
      for (const type of OUTBOX_TYPES) events.off(type, wake)
      await delivery.close()
    },
  }
}
