/**
 * The webhook delivery loop: claims due pending deliveries in the store (a compare-and-set on `claimed_until`, so
 * with several nodes each delivery is sent by one), POSTs each event signed with its webhook's secret, and records
 * the outcome: 2xx within 10 s succeeds; anything else is tried again 10 s later, doubling up to 1 h, until 24 h
 * after the event, then fails. At most MAX_IN_FLIGHT requests run at once; nothing here is awaited by ingest or
 * the API. Deliveries of a disabled webhook are not claimed (they wait, and resume when it is enabled again); a
 * deleted webhook's are deleted with it. The target is checked at every attempt (./webhook-transport.ts): a
 * refused address fails the attempt like any other error. Failures are logged at warn, at most one line per
 * webhook per FAILURE_LOG_MS with the count of failures since its previous line: never the secret, the body, or
 * more of the URL than its host.
 */
import { createHmac } from 'node:crypto'
import type { DueDelivery, MetaStore, OutboxEvent } from '../../store/types.ts'
import type { Logger } from '../kernel/log.ts'
import type { WebhookTransport } from './webhook-transport.ts'

export const MAX_IN_FLIGHT = 16
export const ATTEMPT_TIMEOUT_MS = 10_000
export const FIRST_RETRY_MS = 10_000
export const MAX_RETRY_MS = 3600_000
export const GIVE_UP_MS = 24 * 3600_000
/** A claim outlives the attempt's timeout comfortably. */
const CLAIM_MS = ATTEMPT_TIMEOUT_MS + 20_000
/** How often the loop looks at the store when nothing woke it. */
const POLL_MS = 500
/** At most one failure line per webhook this often. */
export const FAILURE_LOG_MS = 60_000
/** How often events past their retention are deleted, and how many per statement. */
const PRUNE_EVERY_MS = 3600_000
const PRUNE_BATCH = 5_000

export interface DeliveryDeps {
  meta: MetaStore
  now: () => number
  log: (message: string, e?: unknown) => void
  /** How long events and their delivery log are kept (ms); at least a day, longer than any retry (GIVE_UP_MS). */
  retentionMs: number
  transport: WebhookTransport
  /** Where failing deliveries are reported (warn). */
  logger: Logger
}

/** The body of a delivery (and of a live stream event): `{id, type, time, tenantID, data}`, time in epoch ms. */
export function eventBody(e: OutboxEvent): string {
  return `{"id":${e.id},"type":${JSON.stringify(e.type)},"time":${e.time},"tenantID":${JSON.stringify(e.tenantID)},"data":${e.data}}`
}

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` with the webhook's secret. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
}

/** When to try again after the `attempts`-th failure, or null to give up. */
export function nextTry(attempts: number, eventTime: number, now: number): number | null {
  const delay = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS)
  const at = now + delay
  return at > eventTime + GIVE_UP_MS ? null : at
}

export class WebhookDelivery {
  private readonly inFlight = new Map<number, Promise<void>>()
  private readonly stop = new AbortController()
  private timer: NodeJS.Timeout | undefined
  private running = false
  private again = false
  private closed = false
  private prunedAt = -Infinity
  /** Per webhook: when its last failure line was written, and the failures since. */
  private readonly failures = new Map<number, { at: number; count: number }>()

  constructor(private readonly d: DeliveryDeps) {}

  start() {
    const loop = () => {
      this.wake()
      if (!this.closed) this.timer = setTimeout(loop, POLL_MS).unref()
    }
    loop()
  }

  /** Looks for due deliveries now (events were stored, a delivery was re-queued, a slot freed). */
  wake() {
    if (this.closed) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = true
    void this.pass()
      .catch((e) => this.d.log('delivery pass failed', e))
      .finally(() => {
        this.running = false
        if (this.again) {
          this.again = false
          this.wake()
        }
      })
  }

  private async pass() {
    const now = this.d.now()
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now
      void this.prune(now - this.d.retentionMs).catch((e) => this.d.log('outbox prune failed', e))
    }
    const free = MAX_IN_FLIGHT - this.inFlight.size
    if (free <= 0) return
    const due = await this.d.meta.webhooks.claimDue(now, now + CLAIM_MS, free)
    for (const delivery of due) {
      const p = this.send(delivery)
        .catch((e) => this.d.log('delivery failed', e))
        .finally(() => {
          this.inFlight.delete(delivery.id)
          this.wake()
        })
      this.inFlight.set(delivery.id, p)
    }
  }

  private async send(delivery: DueDelivery) {
    const body = eventBody(delivery.event)
    const timestamp = Math.floor(this.d.now() / 1000)
    const started = Date.now()
    let responseCode: number | null = null
    let lastError: string | null = null
    try {
      responseCode = await this.d.transport.post(
        delivery.url,
        {
          'content-type': 'application/json',
          'user-agent': 'DeviceCloud-Webhooks',
          'x-devicecloud-event': delivery.event.type,
          'x-devicecloud-delivery': String(delivery.event.id),
          'x-devicecloud-timestamp': String(timestamp),
          'x-devicecloud-signature': signature(delivery.secret, timestamp, body),
        },
        body,
        AbortSignal.any([this.stop.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      )
      if (responseCode < 200 || responseCode > 299) lastError = `HTTP ${responseCode}`
    } catch (e) {
      if (this.closed) {
        await this.d.meta.webhooks.release([delivery])
        return
      }
      lastError = e instanceof Error ? String((e.cause as Error)?.message ?? e.message) : String(e)
    }
    const at = this.d.now()
    const attempts = delivery.attempts + 1
    const retryAt = lastError === null ? null : nextTry(attempts, delivery.event.time, at)
    if (lastError !== null) this.failed(delivery, attempts, lastError, retryAt, at)
    await this.d.meta.webhooks.record({
      id: delivery.id,
      claimedUntil: delivery.claimedUntil,
      status: lastError === null ? 'succeeded' : retryAt === null ? 'failed' : 'pending',
      nextTryAt: retryAt,
      responseCode,
      lastError: lastError?.slice(0, 500) ?? null,
      durationMs: Date.now() - started,
      at,
    })
  }

  /** Logs a failed attempt, unless this webhook's last line is younger than FAILURE_LOG_MS (then counts it). */
  private failed(
    delivery: DueDelivery,
    attempts: number,
    error: string,
    retryAt: number | null,
    at: number,
  ) {
    const seen = this.failures.get(delivery.webhookID)
    if (seen && at - seen.at < FAILURE_LOG_MS) {
      seen.count++
      return
    }
    if (this.failures.size >= 10_000)
      for (const [id, f] of this.failures) if (at - f.at >= FAILURE_LOG_MS) this.failures.delete(id)
    this.failures.set(delivery.webhookID, { at, count: 0 })
    let host = ''
    try {
      host = new URL(delivery.url).host
    } catch {
      // a stored URL always parses; the line goes without it otherwise
    }
    this.d.logger.warn(
      {
        webhookID: delivery.webhookID,
        host,
        eventID: delivery.event.id,
        attempts,
        error: error.slice(0, 200),
        nextTryAt: retryAt,
        failures: 1 + (seen?.count ?? 0),
      },
      retryAt === null
        ? 'webhook delivery failed, given up'
        : 'webhook delivery failed, will retry',
    )
  }

  /**
   * Deletes events older than `before` with their delivery log, a batch per statement with the event loop free in
   * between. Every node does it (hourly): deleting is idempotent.
   */
  private async prune(before: number) {
    while (!this.closed && (await this.d.meta.webhooks.prune(before, PRUNE_BATCH)) === PRUNE_BATCH)
      await new Promise<void>((resolve) => setImmediate(resolve))
  }

  /** Stops the loop; requests under way are aborted and their deliveries given back untried. */
  async close() {
    this.closed = true
    clearTimeout(this.timer)
    this.stop.abort()
    await Promise.allSettled([...this.inFlight.values()])
    this.d.transport.close()
  }
}
