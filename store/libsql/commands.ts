import { randomUUID } from 'node:crypto'
import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  CommandInput,
  CommandRecord,
  CommandRepository,
  GroupCommandInput,
  GroupProgress,
  OutboxInput,
  Transition,
} from '../types.ts'
import { insertRows } from './db.ts'
import { outboxInserts } from './webhooks.ts'
import {
  COLUMNS,
  MOVED,
  RETURNING,
  SELECT,
  placeholders,
  recordOf,
  toRecord,
  transitionStatements,
  valuesOf,
} from './command-sql.ts'

/** Commands are control_logs rows with a command_status; every state change is a compare-and-set. */
export class CommandsRepo implements CommandRepository {
  constructor(private readonly db: Db) {}

  async countPending() {
    // each count reads a partial index of its status
    const [queued, sent] = await Promise.all([
      this.db.one(
        "SELECT count(*) AS n FROM control_logs WHERE command_status = 'queued' AND device_int_id IS NOT NULL",
      ),
      this.db.one(
        "SELECT count(*) AS n FROM control_logs WHERE command_status = 'sent' AND deadline_at IS NOT NULL",
      ),
    ])
    return { queued: Number(queued?.n ?? 0), sent: Number(sent?.n ?? 0) }
  }

  async create(
    rows: readonly CommandInput[],
    outbox: readonly OutboxInput[],
  ): Promise<CommandRecord[]> {
    if (!rows.length) return []
    const now = Date.now()
    // the rows answer their ids only: the records are built from what was written (a short statement to
    // prepare and no wide rows to read back at a thousand commands a second)
    const inserts = insertRows(
      'control_logs',
      COLUMNS,
      rows.map(valuesOf(now)),
      'RETURNING id, task_id',
    )
    const results = await this.db.batch([...inserts, ...outboxInserts(outbox, now)])
    const ids = new Map<string, number>()
    for (const rs of results.slice(0, inserts.length))
      for (const r of rs.rows) ids.set(r[1] as string, Number(r[0]))
    return rows.map((r) => recordOf(ids.get(r.taskID)!, r, now))
  }

  async createGroup(r: GroupCommandInput, outbox: readonly OutboxInput[]): Promise<CommandRecord> {
    const now = Date.now()
    const values: InValue[] = [
      r.tenantID,
      r.taskID,
      null,
      null,
      null,
      r.groupIntID,
      r.groupID,
      r.groupName,
      r.topic,
      r.payload,
      r.qos,
      r.timeoutMs,
      r.expiresAt,
      r.status,
      r.needAck === 0 ? 3 : 1,
      null,
      null,
      r.scheduleID ?? null,
      null,
      r.needAck,
      null,
      null,
      r.publishUser ?? null,
      r.userIntID ?? null,
      null,
      now,
      now,
    ]
    const [rs] = await this.db.batch([
      ...insertRows('control_logs', COLUMNS, [values], RETURNING),
      ...outboxInserts(outbox, now),
    ])
    return toRecord(rs!.rows[0]!)
  }

  async fanOut(
    group: Transition,
    members: readonly CommandInput[],
    outbox: readonly OutboxInput[],
  ) {
    const now = Date.now()
    const token = randomUUID()
    const cols = COLUMNS.join(', ')
    const inserts = insertRows('control_logs', COLUMNS, members.map(valuesOf(now))).map(
      (st): InStatement => {
        const { sql, args } = st as { sql: string; args: InValue[] }
        const values = sql.slice(sql.indexOf(' VALUES ') + ' VALUES '.length)
        return {
          sql: `INSERT INTO control_logs (${cols}) SELECT * FROM (VALUES ${values})
            WHERE EXISTS (SELECT 1 FROM control_logs g WHERE g.id = ? AND g.change_id = ?) ${RETURNING}`,
          args: [...args, group.id, token],
        }
      },
    )
    const moving = transitionStatements([group], now, token)
    const results = await this.db.batch([
      ...moving,
      ...inserts,
      ...outboxInserts(outbox, now, {
        refs: outbox.map(() => group.id),
        exists: MOVED,
        args: [token],
      }),
    ])
    const moved = results[0]!.rows[0]
    if (!moved) return undefined
    return {
      group: toRecord(moved),
      members: results
        .slice(moving.length, moving.length + inserts.length)
        .flatMap((rs) => rs.rows.map(toRecord)),
    }
  }

  async get(tenant: string, taskID: string): Promise<CommandRecord | undefined> {
    const r = await this.db.one(`${SELECT} WHERE tenant_id = ? AND task_id = ?`, [tenant, taskID])
    return r ? toRecord(r) : undefined
  }

  async transition(changes: readonly Transition[]): Promise<CommandRecord[]> {
    if (!changes.length) return []
    const statements = transitionStatements(changes, Date.now(), randomUUID())
    const results = await this.db.batch(statements)
    return results.flatMap((rs) => rs.rows.map(toRecord))
  }

  async claimDue(now: number, until: number, limit: number): Promise<CommandRecord[]> {
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE control_logs SET claimed_until = ? WHERE id IN (
            SELECT id FROM control_logs WHERE command_status = 'queued' AND dispatch_at IS NOT NULL
              AND dispatch_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
            ORDER BY dispatch_at, id LIMIT ?) ${RETURNING}`,
        args: [until, now, now, limit],
      },
    ])
    return rs!.rows.map(toRecord).sort((a, b) => a.id - b.id)
  }

  async claimQueued(
    deviceIntIDs: number | readonly number[],
    now: number,
    until: number,
  ): Promise<CommandRecord[]> {
    const ids = typeof deviceIntIDs === 'number' ? [deviceIntIDs] : [...deviceIntIDs]
    if (!ids.length) return []
    const statements: InStatement[] = []
    for (let k = 0; k < ids.length; k += 500) {
      const chunk = ids.slice(k, k + 500)
      statements.push({
        sql: `UPDATE control_logs SET claimed_until = ? WHERE id IN (
            SELECT id FROM control_logs WHERE device_int_id IN (${placeholders(chunk.length)})
              AND command_status = 'queued' AND (claimed_until IS NULL OR claimed_until < ?)) ${RETURNING}`,
        args: [until, ...chunk, now],
      })
    }
    const results = await this.db.batch(statements)
    return results.flatMap((rs) => rs.rows.map(toRecord)).sort((a, b) => a.id - b.id)
  }

  async overdue(now: number, limit: number): Promise<CommandRecord[]> {
    const [sent, queued] = await this.db.read([
      {
        sql: `${SELECT} WHERE command_status = 'sent' AND deadline_at IS NOT NULL AND deadline_at <= ?
          ORDER BY deadline_at LIMIT ?`,
        args: [now, limit],
      },
      {
        sql: `${SELECT} WHERE command_status = 'queued' AND expires_at IS NOT NULL AND expires_at <= ?
          ORDER BY expires_at LIMIT ?`,
        args: [now, limit],
      },
    ])
    return [...sent!, ...queued!].map(toRecord)
  }

  async unacknowledged(limit: number): Promise<CommandRecord[]> {
    const rows = await this.db.all(
      `${SELECT} WHERE command_status = 'sent' AND deadline_at IS NOT NULL ORDER BY deadline_at LIMIT ?`,
      [limit],
    )
    return rows.map(toRecord)
  }

  async byTaskIDs(tenant: string, taskIDs: readonly string[]): Promise<CommandRecord[]> {
    if (!taskIDs.length) return []
    const rows = await this.db.all(
      `${SELECT} WHERE tenant_id = ? AND device_int_id IS NOT NULL
        AND task_id IN (${placeholders(taskIDs.length)})`,
      [tenant, ...taskIDs],
    )
    return rows.map(toRecord)
  }

  async openGroups(): Promise<CommandRecord[]> {
    const rows = await this.db.all(
      `${SELECT} WHERE device_int_id IS NULL AND need_ack = 1 AND command_status IN ('queued', 'sent')`,
    )
    return rows.map(toRecord)
  }

  async groupCounts(parentID: number, now: number): Promise<GroupProgress> {
    const r = await this.db.one(
      `SELECT count(*) AS total,
         sum(command_status IN ('delivered', 'succeeded', 'failed')) AS delivered,
         sum(command_status = 'succeeded') AS succeeded,
         sum(command_status IN ('failed', 'timed_out', 'expired', 'canceled', 'unsent')) AS failed,
         sum(command_status IN ('queued', 'sent')) AS pending,
         sum(command_status = 'delivered'
           AND coalesce(sent_at, delivered_at) + coalesce(timeout_ms, 0) > ?) AS awaiting
       FROM control_logs WHERE parent_id = ?`,
      [now, parentID],
    )
    const n = (k: string) => Number(r?.[k] ?? 0)
    return {
      total: n('total'),
      delivered: n('delivered'),
      succeeded: n('succeeded'),
      failed: n('failed'),
      pending: n('pending'),
      settled: n('total') - n('pending') - n('awaiting'),
    }
  }

  async claimKey(tenant: string, scope: string, key: string, now: number, maxAgeMs: number) {
    const [, rs] = await this.db.batch([
      {
        sql: 'DELETE FROM idempotency_keys WHERE tenant_id = ? AND scope = ? AND key = ? AND create_at < ?',
        args: [tenant, scope, key, now - maxAgeMs],
      },
      {
        sql: `INSERT INTO idempotency_keys (tenant_id, scope, key, answer, create_at) VALUES (?, ?, ?, NULL, ?)
          ON CONFLICT DO NOTHING RETURNING key`,
        args: [tenant, scope, key, now],
      },
    ])
    if (rs!.rows.length) return undefined
    const r = await this.db.one(
      'SELECT answer FROM idempotency_keys WHERE tenant_id = ? AND scope = ? AND key = ?',
      [tenant, scope, key],
    )
    return { answer: (r?.answer as string | null | undefined) ?? null }
  }

  async saveKey(tenant: string, scope: string, key: string, answer: string | null): Promise<void> {
    if (answer === null)
      await this.db.run(
        'DELETE FROM idempotency_keys WHERE tenant_id = ? AND scope = ? AND key = ?',
        [tenant, scope, key],
      )
    else
      await this.db.run(
        'UPDATE idempotency_keys SET answer = ? WHERE tenant_id = ? AND scope = ? AND key = ?',
        [answer, tenant, scope, key],
      )
  }
}
