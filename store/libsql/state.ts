import { randomUUID } from 'node:crypto'
import type { InStatement } from '@libsql/client'
import type { Db, Row } from './db.ts'
import type { StateJob, StateRepository, StateWrite, StoredState } from '../meta/state.ts'
import { TaskState } from '../meta/tasks.ts'
import { outboxInserts } from './webhooks.ts'

const STATE_COLUMNS = `device_int_id AS deviceIntID, tenant_id AS tenantID, device_id AS deviceID, desired, reported,
  delta, desired_keys AS desiredKeys, reported_keys AS reportedKeys, version, desired_version AS desiredVersion,
  reported_version AS reportedVersion, desired_at AS desiredAt, reported_at AS reportedAt`

const JOB_COLUMNS = `id, tenant_id AS tenantID, task_id AS taskID, scope, scope_int_id AS scopeIntID, patch,
  after_device AS afterDevice, total, changed, unchanged, failed, claimed_until AS claimedUntil`

/**
 * One document's compare-and-set: inserted when the device has no row yet (and still exists in its tenant), else
 * updated while its version is still `expected`; the row takes the transaction's `token` as its change_id.
 */
function upsertOf(w: StateWrite, token: string): InStatement {
  const n = w.next
  return {
    sql: `INSERT INTO device_states (device_int_id, tenant_id, device_id, desired, reported, delta, desired_keys,
        reported_keys, version, desired_version, reported_version, desired_at, reported_at, change_id)
      SELECT d.id, d.tenant_id, d.device_id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM devices d
        WHERE d.id = ? AND d.tenant_id = ?
      ON CONFLICT (device_int_id) DO UPDATE SET desired = excluded.desired, reported = excluded.reported,
        delta = excluded.delta, desired_keys = excluded.desired_keys, reported_keys = excluded.reported_keys,
        version = excluded.version, desired_version = excluded.desired_version,
        reported_version = excluded.reported_version, desired_at = excluded.desired_at,
        reported_at = excluded.reported_at, change_id = excluded.change_id
      WHERE device_states.version = ?`,
    args: [
      n.desired,
      n.reported,
      n.delta,
      n.desiredKeys,
      n.reportedKeys,
      n.version,
      n.desiredVersion,
      n.reportedVersion,
      n.desiredAt,
      n.reportedAt,
      token,
      n.deviceIntID,
      n.tenantID,
      w.expected,
    ],
  }
}

const num = (v: unknown) => Number(v)
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v))

const stateOf = (r: Row): StoredState => ({
  deviceIntID: num(r.deviceIntID),
  tenantID: String(r.tenantID),
  deviceID: String(r.deviceID),
  desired: String(r.desired),
  reported: String(r.reported),
  delta: String(r.delta),
  desiredKeys: String(r.desiredKeys),
  reportedKeys: String(r.reportedKeys),
  version: num(r.version),
  desiredVersion: num(r.desiredVersion),
  reportedVersion: num(r.reportedVersion),
  desiredAt: numOrNull(r.desiredAt),
  reportedAt: numOrNull(r.reportedAt),
})

const jobOf = (r: Row): StateJob => ({
  id: num(r.id),
  tenantID: String(r.tenantID),
  taskID: String(r.taskID),
  scope: r.scope === 'group' ? 'group' : 'product',
  scopeIntID: num(r.scopeIntID),
  patch: String(r.patch),
  afterDevice: num(r.afterDevice),
  total: num(r.total),
  changed: num(r.changed),
  unchanged: num(r.unchanged),
  failed: num(r.failed),
  claimedUntil: num(r.claimedUntil),
})

/** State documents and state jobs over libSQL. */
export class StateRepo implements StateRepository {
  constructor(private readonly db: Db) {}

  async byDevices(deviceIntIDs: readonly number[]): Promise<Map<number, StoredState>> {
    const out = new Map<number, StoredState>()
    if (!deviceIntIDs.length) return out
    const rows = await this.db.all(
      `SELECT ${STATE_COLUMNS} FROM device_states
        WHERE device_int_id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(deviceIntIDs)],
    )
    for (const r of rows) out.set(num(r.deviceIntID), stateOf(r))
    return out
  }

  async write(writes: readonly StateWrite[], now: number): Promise<Set<number>> {
    if (!writes.length) return new Set()
    const token = randomUUID()
    const ids = writes.map((w) => w.next.deviceIntID)
    const results = await this.db.batch([
      ...writes.map((w) => upsertOf(w, token)),
      ...outboxInserts(
        writes.map((w) => w.outbox),
        now,
        {
          refs: ids,
          exists:
            'EXISTS (SELECT 1 FROM device_states s WHERE s.device_int_id = v.ref AND s.change_id = ?)',
          args: [token],
        },
      ),
      {
        sql: `SELECT device_int_id FROM device_states
          WHERE change_id = ? AND device_int_id IN (SELECT value FROM json_each(?))`,
        args: [token, JSON.stringify(ids)],
      },
    ])
    return new Set(results.at(-1)!.rows.map((r) => Number(r[0])))
  }

  async changesSince(afterID: number, limit: number) {
    const [tops, rows] = await this.db.read([
      {
        sql: 'SELECT min(coalesce(max(id), 0), ?) AS n FROM outbox_events',
        args: [afterID + limit],
      },
      {
        sql: `SELECT json_extract(data, '$.deviceIntID') AS deviceIntID, json_extract(data, '$.version') AS version
          FROM outbox_events WHERE id > ? AND id <= ? AND type = 'device.state' ORDER BY id`,
        args: [afterID, afterID + limit],
      },
    ])
    const lastID = Math.max(afterID, num(tops?.[0]?.n ?? afterID))
    const changes = (rows ?? [])
      .map((r) => ({ deviceIntID: num(r.deviceIntID), version: num(r.version) }))
      .filter((c) => c.deviceIntID > 0)
    return { lastID, changes }
  }

  async createJob(
    job: Parameters<StateRepository['createJob']>[0],
    now: number,
  ): Promise<StateJob> {
    const [, rs] = await this.db.batch([
      {
        sql: `INSERT INTO tasks (tenant_id, task_id, task_name, status, progress, user_int_id, create_at)
          VALUES (?, ?, ?, ?, 0, ?, ?)`,
        args: [job.tenantID, job.taskID, job.taskName, TaskState.waiting, job.userIntID, now],
      },
      {
        sql: `INSERT INTO state_jobs (tenant_id, task_id, scope, scope_int_id, patch, total, create_at)
          VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${JOB_COLUMNS}`,
        args: [job.tenantID, job.taskID, job.scope, job.scopeIntID, job.patch, job.total, now],
      },
    ])
    return jobOf(rs!.rows[0]!)
  }

  async claimJob(now: number, until: number): Promise<StateJob | undefined> {
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE state_jobs SET claimed_until = ?
          WHERE id = (SELECT id FROM state_jobs WHERE done = 0 AND claimed_until < ? ORDER BY id LIMIT 1)
          RETURNING ${JOB_COLUMNS}`,
        args: [until, now],
      },
    ])
    const row = rs!.rows[0]
    return row ? jobOf(row) : undefined
  }

  async scopeDevices(
    job: Pick<StateJob, 'tenantID' | 'scope' | 'scopeIntID'>,
    after: number,
    limit: number,
  ): Promise<Array<{ id: number; deviceID: string }>> {
    const sql =
      job.scope === 'group'
        ? `SELECT d.id, d.device_id AS deviceID FROM group_devices gd
            JOIN groups g ON g.id = gd.group_int_id JOIN devices d ON d.id = gd.device_int_id
            WHERE gd.group_int_id = ? AND g.tenant_id = ? AND gd.device_int_id > ?
            ORDER BY gd.device_int_id LIMIT ?`
        : `SELECT d.id, d.device_id AS deviceID FROM devices d
            WHERE d.product_int_id = ? AND d.tenant_id = ? AND d.id > ? ORDER BY d.id LIMIT ?`
    const rows = await this.db.all(sql, [job.scopeIntID, job.tenantID, after, limit])
    return rows.map((r) => ({ id: Number(r.id), deviceID: String(r.deviceID) }))
  }

  async scopeCount(job: Pick<StateJob, 'tenantID' | 'scope' | 'scopeIntID'>): Promise<number> {
    const sql =
      job.scope === 'group'
        ? `SELECT count(*) AS n FROM group_devices gd JOIN groups g ON g.id = gd.group_int_id
            WHERE gd.group_int_id = ? AND g.tenant_id = ?`
        : 'SELECT count(*) AS n FROM devices d WHERE d.product_int_id = ? AND d.tenant_id = ?'
    const row = await this.db.one(sql, [job.scopeIntID, job.tenantID])
    return num(row?.n ?? 0)
  }

  async stepJob(
    job: Pick<StateJob, 'id' | 'claimedUntil'>,
    step: Pick<StateJob, 'afterDevice' | 'changed' | 'unchanged' | 'failed'>,
    until: number,
  ): Promise<boolean> {
    const r = await this.db.run(
      `UPDATE state_jobs SET after_device = ?, changed = ?, unchanged = ?, failed = ?, claimed_until = ?
        WHERE id = ? AND claimed_until = ?`,
      [
        step.afterDevice,
        step.changed,
        step.unchanged,
        step.failed,
        until,
        job.id,
        job.claimedUntil,
      ],
    )
    return r.changes === 1
  }

  async finishJob(id: number): Promise<void> {
    await this.db.run('UPDATE state_jobs SET done = 1, claimed_until = 0 WHERE id = ?', [id])
  }
}
