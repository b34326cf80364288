import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  DeliveryOutcome,
  DeliveryRecord,
  DueDelivery,
  ListArgs,
  OutboxEvent,
  OutboxInput,
  OutboxType,
  Page,
  WebhookInput,
  WebhookRecord,
  WebhookRepository,
} from '../types.ts'
import { DELIVERY_TABLE, OUTBOX_EVENT_TABLE, WEBHOOK_TABLE } from '../fields/webhooks.ts'
import { NotFound } from '../errors.ts'
import { listPage, tableList } from './list.ts'
import { readRecord, readRecords } from './records.ts'
import { TableRepo } from './table-repository.ts'

const DELIVERY_FROM = `FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    JOIN outbox_events e ON e.id = d.event_id`

const deliveryList = tableList(DELIVERY_TABLE, {
  from: DELIVERY_FROM,
  where: 'w.tenant_id = ? AND d.webhook_id = ?',
  timeField: 'd.id',
  idField: 'd.id',
})

const qs = (n: number) => Array.from({ length: n }, () => '?').join(',')

/**
 * The two statements that store one outbox event and a pending delivery for each enabled webhook of the event's own
 * tenant subscribed to its type (deliveriesOfLast: never `last_insert_rowid()`, which moves with every delivery row);
 * the first answers the event's id. Run them inside the transaction of the change the event announces.
 */
export function outboxStatements(e: OutboxInput, now: number): InStatement[] {
  return [
    {
      sql: `INSERT INTO outbox_events (tenant_id, type, time, device_id, data) VALUES (?, ?, ?, ?, ?)
        RETURNING id`,
      args: [e.tenantID, e.type, e.time, e.deviceID, e.data],
    },
    deliveriesOfLast(now),
  ]
}

const EVENTS_PER_INSERT = 400

/**
 * Right after an INSERT of outbox events (same transaction): a pending delivery of each event it stored (the newest
 * `changes()` rows: one INSERT's AUTOINCREMENT ids are consecutive, and the write transaction holds the database) per
 * enabled webhook of the event's own tenant subscribed to its type.
 */
export function deliveriesOfLast(now: number): InStatement {
  return {
    sql: `INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts, next_try_at, create_at)
      SELECT w.id, e.id, 'pending', 0, ?, ? FROM outbox_events e
        JOIN webhooks w ON w.tenant_id = e.tenant_id AND w.enable = 1
      WHERE e.id > (SELECT max(id) FROM outbox_events) - changes()
        AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = e.type)
      ORDER BY e.id, w.id`,
    args: [now, now],
  }
}

/**
 * The statements that store many outbox events (chunks of one multi-row INSERT each) and, after each chunk, their
 * deliveries (deliveriesOfLast). Run them inside the transaction of the change the events announce.
 *
 * With `when`, an event is stored only when the row it names still qualifies: `when.exists` is an SQL condition on
 * `v.ref` (the event's `refs[i]`), e.g. `EXISTS (SELECT 1 FROM control_logs c WHERE c.id = v.ref AND ...)`.
 */
export function outboxInserts(
  events: readonly OutboxInput[],
  now: number,
  when?: { refs: readonly number[]; exists: string; args: InValue[] },
): InStatement[] {
  const out: InStatement[] = []
  for (let i = 0; i < events.length; i += EVENTS_PER_INSERT) {
    const chunk = events.slice(i, i + EVENTS_PER_INSERT)
    const args: InValue[] = chunk.flatMap((e, k) => [
      e.tenantID,
      e.type,
      e.time,
      e.deviceID,
      e.data,
      when ? when.refs[i + k]! : null,
    ])
    out.push(
      {
        sql: `INSERT INTO outbox_events (tenant_id, type, time, device_id, data)
          SELECT v.tenant_id, v.type, v.time, v.device_id, v.data FROM (SELECT column1 AS tenant_id,
            column2 AS type, column3 AS time, column4 AS device_id, column5 AS data, column6 AS ref
            FROM (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')})) v
          ${when ? `WHERE ${when.exists}` : ''}`,
        args: [...args, ...(when?.args ?? [])],
      },
      deliveriesOfLast(now),
    )
  }
  return out
}

/** Webhooks, the outbox and deliveries over libSQL. Removing a webhook takes its deliveries with it. */
export class WebhooksRepo
  extends TableRepo<typeof WEBHOOK_TABLE, typeof WEBHOOK_TABLE, WebhookInput>
  implements WebhookRepository
{
  constructor(db: Db) {
    super(db, {
      list: WEBHOOK_TABLE,
      from: 'FROM webhooks w',
      remove: {
        nameColumn: 'url',
        uses: {},
        missing: (missing) => `no webhook ${missing.join(', ')}`,
        before: (ids) => [
          {
            sql: `DELETE FROM webhook_deliveries WHERE webhook_id IN (${qs(ids.length)})`,
            args: ids,
          },
        ],
      },
    })
  }

  create(
    tenant: string,
    input: WebhookInput & { secret: string; userIntID: number | null },
    now: number,
  ): Promise<WebhookRecord> {
    return this.insert(
      tenant,
      input,
      { secret: input.secret, user_int_id: input.userIntID },
      { now },
    )
  }

  override update(tenant: string, id: number, input: WebhookInput, now = Date.now()) {
    return this.write(tenant, id, input, { now })
  }

  remove(tenant: string, ids: number[]): Promise<void> {
    return this.delete(tenant, ids)
  }

  async append(events: readonly OutboxInput[], now: number): Promise<OutboxEvent[]> {
    if (!events.length) return []
    const results = await this.db.batch(events.flatMap((e) => outboxStatements(e, now)))
    return events.map((e, i) => ({ ...e, id: Number(results[2 * i]!.rows[0]![0]) }))
  }

  async eventsAfter(
    tenant: string,
    afterID: number,
    filter: { types?: readonly string[]; deviceID?: string },
    limit: number,
  ): Promise<OutboxEvent[]> {
    const conds = ['tenant_id = ?', 'id > ?']
    const args: InValue[] = [tenant, afterID]
    if (filter.types?.length) {
      conds.push(`type IN (${qs(filter.types.length)})`)
      args.push(...filter.types)
    }
    if (filter.deviceID !== undefined) {
      conds.push('device_id = ?')
      args.push(filter.deviceID)
    }
    return readRecords(
      this.db,
      OUTBOX_EVENT_TABLE,
      `FROM outbox_events e WHERE ${conds.join(' AND ')} ORDER BY e.id LIMIT ?`,
      [...args, limit],
    )
  }

  async eventsSince(afterID: number, limit: number): Promise<OutboxEvent[]> {
    return readRecords(
      this.db,
      OUTBOX_EVENT_TABLE,
      'FROM outbox_events e WHERE e.id > ? ORDER BY e.id LIMIT ?',
      [afterID, limit],
    )
  }

  async lastEventID(): Promise<number> {
    const r = await this.db.one('SELECT coalesce(max(id), 0) AS n FROM outbox_events')
    return Number(r?.n ?? 0)
  }

  async prune(before: number, limit: number): Promise<number> {
    const { changes } = await this.db.run(
      'DELETE FROM outbox_events WHERE id IN (SELECT id FROM outbox_events WHERE time < ? LIMIT ?)',
      [before, limit],
    )
    return changes
  }

  async claimDue(now: number, until: number, limit: number): Promise<DueDelivery[]> {
    if (limit <= 0) return []
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE webhook_deliveries SET claimed_until = ? WHERE id IN (
            SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_try_at <= ?
              AND (claimed_until IS NULL OR claimed_until < ?)
              AND webhook_id IN (SELECT id FROM webhooks WHERE enable = 1)
            ORDER BY next_try_at, id LIMIT ?) RETURNING id`,
        args: [until, now, now, limit],
      },
    ])
    const ids = rs!.rows.map((r) => Number(r[0]))
    if (!ids.length) return []
    const rows = await this.db.all(
      `SELECT d.id AS id, d.webhook_id AS webhookID, d.attempts AS attempts, d.claimed_until AS claimedUntil, w.url AS url,
         w.secret AS secret, e.id AS eventID, e.tenant_id AS tenantID, e.type AS type, e.time AS time,
         e.device_id AS deviceID, e.data AS data
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN outbox_events e ON e.id = d.event_id
       WHERE d.id IN (${qs(ids.length)}) AND d.claimed_until = ? ORDER BY d.id`,
      [...ids, until],
    )
    return rows.map((r) => ({
      id: Number(r.id),
      webhookID: Number(r.webhookID),
      attempts: Number(r.attempts),
      claimedUntil: Number(r.claimedUntil),
      url: String(r.url),
      secret: String(r.secret),
      event: {
        id: Number(r.eventID),
        tenantID: String(r.tenantID),
        type: r.type as OutboxType,
        time: Number(r.time),
        deviceID: (r.deviceID as string | null) ?? null,
        data: String(r.data),
      },
    }))
  }

  async record(o: DeliveryOutcome): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_try_at = ?, claimed_until = NULL,
         response_code = ?, last_error = ?, duration_ms = ?, update_at = ?
       WHERE id = ? AND claimed_until = ? AND status = 'pending'`,
      [
        o.status,
        o.nextTryAt,
        o.responseCode,
        o.lastError,
        o.durationMs,
        o.at,
        o.id,
        o.claimedUntil,
      ],
    )
    return changes > 0
  }

  async release(claims: ReadonlyArray<{ id: number; claimedUntil: number }>): Promise<void> {
    if (!claims.length) return
    await this.db.batch(
      claims.map((c) => ({
        sql: 'UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ? AND claimed_until = ?',
        args: [c.id, c.claimedUntil],
      })),
    )
  }

  async deliveries(tenant: string, webhookID: number, q: ListArgs): Promise<Page<DeliveryRecord>> {
    await this.get(tenant, webhookID)
    return listPage(this.db, deliveryList, [tenant, webhookID], q)
  }

  async delivery(tenant: string, webhookID: number, deliveryID: number) {
    const where = `${DELIVERY_FROM} WHERE d.id = ? AND d.webhook_id = ? AND w.tenant_id = ?`
    const args = [deliveryID, webhookID, tenant]
    const record = await readRecord(this.db, DELIVERY_TABLE, where, args)
    const [event] = await readRecords(this.db, OUTBOX_EVENT_TABLE, where, args)
    if (!record || !event) throw new NotFound()
    return { record, event }
  }

  async retry(tenant: string, webhookID: number, deliveryID: number, now: number) {
    const { changes } = await this.db.run(
      `UPDATE webhook_deliveries SET status = 'pending', next_try_at = ?, claimed_until = NULL, update_at = ?
       WHERE id = ? AND webhook_id IN (SELECT id FROM webhooks WHERE id = ? AND tenant_id = ?)`,
      [now, now, deliveryID, webhookID, tenant],
    )
    if (changes === 0) throw new NotFound()
    const r = await readRecord(
      this.db,
      DELIVERY_TABLE,
      `${DELIVERY_FROM} WHERE d.id = ? AND w.tenant_id = ?`,
      [deliveryID, tenant],
    )
    if (!r) throw new NotFound()
    return r
  }
}
