import { randomUUID } from 'node:crypto'
import type { InStatement, InValue } from '@libsql/client'
import type { Db, Row } from './db.ts'
import type { ListArgs, Page } from '../list.ts'
import type {
  Claim,
  Eligible,
  PendingMessage,
  ReportChange,
  RolloutDeviceRecord,
  RolloutDeviceRow,
  RolloutInput,
  RolloutRecord,
  RolloutRepository,
  RolloutRun,
} from '../meta/rollouts.ts'
import {
  OTA_STATUSES,
  ROLLOUT_DEVICE_TABLE,
  ROLLOUT_TABLE,
  countsSql,
  type OtaStatus,
  type RolloutStatus,
} from '../fields/rollouts.ts'
import { NotFound } from '../errors.ts'
import { listPage, tableList, tenantList } from './list.ts'
import { readRecord } from './records.ts'
import { deliveriesOfLast } from './webhooks.ts'
import { randomId } from '../../src/kernel/secrets.ts'

const FROM = `FROM firmware_rollouts r JOIN products p ON p.id = r.product_int_id
  LEFT JOIN groups g ON g.id = r.group_int_id LEFT JOIN users u ON u.id = r.user_int_id`
const ROWS_FROM = `FROM firmware_rollout_devices rd JOIN firmware_rollouts r ON r.id = rd.rollout_int_id
  JOIN devices d ON d.id = rd.device_int_id`

const rolloutList = tenantList(ROLLOUT_TABLE, FROM, 'r')
const rolloutDevices = tableList(ROLLOUT_DEVICE_TABLE, {
  from: ROWS_FROM,
  where: 'rd.rollout_int_id = ? AND rd.tenant_id = ?',
  timeField: 'rd.update_at',
  idField: 'rd.device_int_id',
})
const deviceHistory = tableList(ROLLOUT_DEVICE_TABLE, {
  from: ROWS_FROM,
  where: 'rd.device_int_id = ? AND rd.tenant_id = ?',
  timeField: 'rd.update_at',
  idField: 'rd.rollout_int_id',
})

/** A device is working on an update in these states. */
const IN_PROGRESS_SQL = `('notified', 'downloading', 'downloaded', 'verifying', 'updating')`
const OPEN_SQL = `('running', 'paused')`

const num = (v: unknown) => Number(v)
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v))
const ids = (list: readonly number[]) => JSON.stringify(list)
const IN_IDS = 'IN (SELECT value FROM json_each(?))'

/**
 * The `firmware.rollout` event of the rollout whose change_id is `token` (none when the change did not happen). A
 * null id finds the rollout by its token alone: the batch that creates it does not know its id yet.
 */
function rolloutEvent(id: number | null, token: string, now: number): InStatement[] {
  const which = id === null ? 'r.change_id = ?' : 'r.id = ? AND r.change_id = ?'
  return [
    {
      sql: `INSERT INTO outbox_events (tenant_id, type, time, device_id, data)
        SELECT r.tenant_id, 'firmware.rollout', ?, NULL, json_object('rolloutIntID', r.id, 'rolloutID', r.rollout_id,
          'firmwareID', r.firmware_id, 'version', r.version, 'productID', p.product_id, 'status', r.status,
          'total', r.total, 'counts', json(${countsSql('r.id')}), 'at', ?)
        FROM firmware_rollouts r JOIN products p ON p.id = r.product_int_id WHERE ${which}`,
      args: id === null ? [now, now, token] : [now, now, id, token],
    },
    deliveriesOfLast(now),
  ]
}

/** The `firmware.device` events of the rollout's device rows whose change_id is `token`. */
function deviceEvents(id: number, token: string, now: number): InStatement[] {
  return [
    {
      sql: `INSERT INTO outbox_events (tenant_id, type, time, device_id, data)
        SELECT rd.tenant_id, 'firmware.device', ?, d.device_id, json_object('rolloutIntID', r.id,
          'rolloutID', r.rollout_id, 'firmwareID', r.firmware_id, 'version', r.version, 'deviceIntID', d.id,
          'deviceID', d.device_id, 'deviceName', d.device_name, 'status', rd.status, 'attempt', rd.attempt,
          'progress', rd.progress, 'error', rd.error, 'at', ?)
        ${ROWS_FROM} WHERE rd.rollout_int_id = ? AND rd.change_id = ? ORDER BY rd.device_int_id`,
      args: [now, now, id, token],
    },
    deliveriesOfLast(now),
  ]
}

/** A statement that holds only when the rollout's change_id is the batch's token (its first statement set it). */
const held = (id: number, token: string) => ({
  sql: `EXISTS (SELECT 1 FROM firmware_rollouts WHERE id = ? AND change_id = ?)`,
  args: [id, token] as InValue[],
})

const RUN_COLUMNS = `id, tenant_id AS tenantID, rollout_id AS rolloutID, firmware_int_id AS firmwareIntID,
  firmware_id AS firmwareID, version, status, rate_per_minute AS ratePerMinute, ramp_up AS rampUp,
  abort_failed_percent AS abortFailedPercent, abort_min_finished AS abortMinFinished,
  timeout_minutes AS timeoutMinutes, retries, next_at AS nextAt, claim_token AS claimToken,
  claimed_until AS claimedUntil`

const runOf = (r: Row): RolloutRun => ({
  id: num(r.id),
  tenantID: String(r.tenantID),
  rolloutID: String(r.rolloutID),
  firmwareIntID: numOrNull(r.firmwareIntID),
  firmwareID: String(r.firmwareID),
  version: String(r.version),
  status: String(r.status) as RolloutStatus,
  ratePerMinute: num(r.ratePerMinute),
  rampUp: r.rampUp ? (JSON.parse(r.rampUp as string) as RolloutRun['rampUp']) : null,
  abortFailedPercent: numOrNull(r.abortFailedPercent),
  abortMinFinished: num(r.abortMinFinished),
  timeoutMinutes: num(r.timeoutMinutes),
  retries: num(r.retries),
  nextAt: num(r.nextAt),
  claimToken: String(r.claimToken),
  claimedUntil: num(r.claimedUntil),
})

const pendingOf = (r: Row): PendingMessage => ({
  kind: r.kind === 'cancel' ? 'cancel' : 'notify',
  rolloutIntID: num(r.rolloutIntID),
  rolloutID: String(r.rolloutID),
  deviceIntID: num(r.deviceIntID),
  attempt: num(r.attempt),
  firmwareID: String(r.firmwareID),
  version: String(r.version),
  size: num(r.size),
  sha256: String(r.sha256),
  timeoutMinutes: num(r.timeoutMinutes),
})

/**
 * The devices of a rollout's target as `SELECT d.id, d.soft_version FROM ...` with its args: a group's members, a
 * product's devices or the ids given, of the product, with a softVersion among `fromVersions` when given.
 */
function targetSql(tenant: string, input: RolloutInput): { from: string; args: InValue[] } {
  const t = input.target
  const scope =
    t.kind === 'group'
      ? {
          sql: 'd.id IN (SELECT device_int_id FROM group_devices WHERE group_int_id = ?)',
          args: [t.groupIntID],
        }
      : t.kind === 'devices'
        ? { sql: `d.id ${IN_IDS}`, args: [ids(t.deviceIntIDs)] }
        : { sql: '1', args: [] }
  const versions = input.fromVersions
    ? { sql: `AND d.soft_version ${IN_IDS}`, args: [JSON.stringify(input.fromVersions)] }
    : { sql: '', args: [] }
  return {
    from: `FROM devices d WHERE d.tenant_id = ? AND d.kind = 'device' AND d.product_int_id = ? AND ${scope.sql}
      ${versions.sql}`,
    args: [tenant, input.productIntID, ...scope.args, ...versions.args],
  }
}

/** Firmware rollouts and their device rows over libSQL. */
export class RolloutRepo implements RolloutRepository {
  constructor(private readonly db: Db) {}

  list(tenant: string, q: ListArgs): Promise<Page<RolloutRecord>> {
    return listPage(this.db, rolloutList, [tenant], q)
  }

  async get(tenant: string, id: number): Promise<RolloutRecord> {
    const found = await readRecord(
      this.db,
      ROLLOUT_TABLE,
      `${FROM} WHERE r.tenant_id = ? AND r.id = ?`,
      [tenant, id],
    )
    if (!found) throw new NotFound()
    return found
  }

  async devices(
    tenant: string,
    rolloutIntID: number,
    q: ListArgs,
  ): Promise<Page<RolloutDeviceRecord>> {
    await this.get(tenant, rolloutIntID)
    return listPage(this.db, rolloutDevices, [rolloutIntID, tenant], q)
  }

  history(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<RolloutDeviceRecord>> {
    return listPage(this.db, deviceHistory, [deviceIntID, tenant], q)
  }

  async devicesOf(tenant: string, deviceIDs: readonly string[]) {
    const rows = await this.db.all(
      `SELECT id, device_id AS deviceID, product_int_id AS productIntID FROM devices
        WHERE tenant_id = ? AND kind = 'device' AND device_id ${IN_IDS}`,
      [tenant, JSON.stringify(deviceIDs)],
    )
    return rows.map((r) => ({
      id: num(r.id),
      deviceID: String(r.deviceID),
      productIntID: num(r.productIntID),
    }))
  }

  async softVersions(tenant: string, productIntID: number) {
    const product = await this.db.one('SELECT id FROM products WHERE id = ? AND tenant_id = ?', [
      productIntID,
      tenant,
    ])
    if (!product) throw new NotFound()
    const rows = await this.db.all(
      `SELECT soft_version AS softVersion, count(*) AS n FROM devices
        WHERE product_int_id = ? AND tenant_id = ? AND kind = 'device'
        GROUP BY soft_version ORDER BY n DESC, soft_version LIMIT 1000`,
      [productIntID, tenant],
    )
    return rows.map((r) => ({
      softVersion: r.softVersion === null ? null : (r.softVersion as string),
      count: num(r.n),
    }))
  }

  async targetCount(tenant: string, input: RolloutInput): Promise<number> {
    const { from, args } = targetSql(tenant, input)
    return num((await this.db.one(`SELECT count(*) AS n ${from}`, args))?.n ?? 0)
  }

  async create(tenant: string, input: RolloutInput, now: number): Promise<number> {
    const token = randomUUID()
    const { from, args } = targetSql(tenant, input)
    for (;;) {
      const rolloutID = randomId(8)
      try {
        const [inserted] = await this.db.batch([
          {
            sql: `INSERT INTO firmware_rollouts (tenant_id, rollout_id, firmware_int_id, firmware_id, version,
                product_int_id, target, group_int_id, from_versions, rate_per_minute, ramp_up, abort_failed_percent,
                abort_min_finished, timeout_minutes, retries, status, total, next_at, user_int_id, create_at,
                change_id)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', 0, ?, ?, ?, ?) RETURNING id`,
            args: [
              tenant,
              rolloutID,
              input.firmwareIntID,
              input.firmwareID,
              input.version,
              input.productIntID,
              input.target.kind === 'devices' ? 'devices' : input.target.kind,
              input.target.kind === 'group' ? input.target.groupIntID : null,
              input.fromVersions ? JSON.stringify(input.fromVersions) : null,
              input.ratePerMinute,
              input.rampUp ? JSON.stringify(input.rampUp) : null,
              input.abortFailedPercent,
              input.abortMinFinished,
              input.timeoutMinutes,
              input.retries,
              now,
              input.userIntID,
              now,
              token,
            ],
          },
          {
            sql: `INSERT INTO firmware_rollout_devices (rollout_int_id, device_int_id, tenant_id, status, from_version,
                progress, update_at)
              SELECT (SELECT id FROM firmware_rollouts WHERE change_id = ?), d.id, d.tenant_id,
                CASE WHEN d.soft_version = ? THEN 'updated' ELSE 'queued' END, d.soft_version,
                CASE WHEN d.soft_version = ? THEN 100 END, ? ${from}`,
            args: [token, input.version, input.version, now, ...args],
          },
          {
            sql: `UPDATE firmware_rollouts SET total = (SELECT count(*) FROM firmware_rollout_devices
                WHERE rollout_int_id = firmware_rollouts.id) WHERE change_id = ?`,
            args: [token],
          },
          ...rolloutEvent(null, token, now), // announced in the same transaction as the rollout it announces
        ])
        return num(inserted!.rows[0]!.id)
      } catch (e) {
        if (String(e).includes('firmware_rollouts.rollout_id')) continue // a drawn id taken: draw again
        throw e
      }
    }
  }

  async setStatus(
    tenant: string,
    id: number,
    from: readonly RolloutStatus[],
    to: RolloutStatus,
    now: number,
  ): Promise<boolean> {
    const token = randomUUID()
    const [changed] = await this.db.batch([
      {
        sql: `UPDATE firmware_rollouts SET status = ?, change_id = ?, update_at = ?,
            next_at = CASE WHEN ? = 'running' THEN ? ELSE next_at END
          WHERE id = ? AND tenant_id = ? AND status ${IN_IDS}`,
        args: [to, token, now, to, now, id, tenant, JSON.stringify(from)],
      },
      ...rolloutEvent(id, token, now),
    ])
    return changed!.rowsAffected > 0
  }

  async stop(
    tenant: string,
    id: number,
    to: 'canceled' | 'aborted',
    now: number,
    claim?: Claim,
  ): Promise<boolean> {
    const token = randomUUID()
    const guard = held(id, token)
    const [changed] = await this.db.batch([
      {
        sql: `UPDATE firmware_rollouts SET status = ?, change_id = ?, update_at = ?, finished_at = ?,
            claim_token = NULL, claimed_until = 0
          WHERE id = ? AND tenant_id = ? AND status IN ${OPEN_SQL} ${claim ? 'AND claim_token = ?' : ''}`,
        args: [to, token, now, now, id, tenant, ...(claim ? [claim.token] : [])],
      },
      // devices told already: canceled, with an ota/cancel to send (and an event)
      {
        sql: `UPDATE firmware_rollout_devices SET status = 'canceled', change_id = ?, update_at = ?,
            error = ?, deadline = NULL
          WHERE rollout_int_id = ? AND status IN ${IN_PROGRESS_SQL} AND ${guard.sql}`,
        args: [token, now, `rollout ${to}`, id, ...guard.args],
      },
      // queued ones: canceled quietly (the rollout's event counts them)
      {
        sql: `UPDATE firmware_rollout_devices SET status = 'canceled', update_at = ?
          WHERE rollout_int_id = ? AND status = 'queued' AND ${guard.sql}`,
        args: [now, id, ...guard.args],
      },
      ...deviceEvents(id, token, now),
      ...rolloutEvent(id, token, now),
    ])
    return changed!.rowsAffected > 0
  }

  async claim(now: number, until: number, token: string): Promise<RolloutRun | undefined> {
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE firmware_rollouts SET claimed_until = ?, claim_token = ?
          WHERE id = (SELECT id FROM firmware_rollouts WHERE status IN ${OPEN_SQL} AND claimed_until < ?
            ORDER BY id LIMIT 1)
          RETURNING ${RUN_COLUMNS}`,
        args: [until, token, now],
      },
    ])
    const row = rs!.rows[0]
    return row ? runOf(row) : undefined
  }

  async reload(claim: Claim): Promise<RolloutRun | undefined> {
    const row = await this.db.one(
      `SELECT ${RUN_COLUMNS} FROM firmware_rollouts WHERE id = ? AND claim_token = ?`,
      [claim.rolloutIntID, claim.token],
    )
    return row ? runOf(row) : undefined
  }

  async counts(rolloutIntID: number): Promise<Record<OtaStatus, number>> {
    const row = await this.db.one(`SELECT ${countsSql('?')} AS counts`, [rolloutIntID])
    const parsed = JSON.parse((row?.counts as string | undefined) ?? '{}') as Partial<
      Record<OtaStatus, number>
    >
    return Object.fromEntries(OTA_STATUSES.map((s) => [s, parsed[s] ?? 0])) as Record<
      OtaStatus,
      number
    >
  }

  async eligible(rolloutIntID: number, limit: number): Promise<Eligible[]> {
    const rows = await this.db.all(
      `SELECT rd.device_int_id AS deviceIntID, d.soft_version AS softVersion
        FROM firmware_rollout_devices rd JOIN devices d ON d.id = rd.device_int_id
        WHERE rd.rollout_int_id = ? AND rd.status = 'queued'
          AND NOT EXISTS (SELECT 1 FROM firmware_rollout_devices o WHERE o.device_int_id = rd.device_int_id
            AND o.rollout_int_id != rd.rollout_int_id AND o.status IN ${IN_PROGRESS_SQL})
          AND NOT EXISTS (SELECT 1 FROM firmware_rollout_devices o JOIN firmware_rollouts orr ON orr.id = o.rollout_int_id
            WHERE o.device_int_id = rd.device_int_id AND o.rollout_int_id < rd.rollout_int_id
              AND o.status = 'queued' AND orr.status IN ${OPEN_SQL})
        ORDER BY rd.device_int_id LIMIT ?`,
      [rolloutIntID, limit],
    )
    return rows.map((r) => ({
      deviceIntID: num(r.deviceIntID),
      softVersion: r.softVersion === null ? null : (r.softVersion as string),
    }))
  }

  /**
   * The first statement of a step under `claim`: renews it and marks the rollout with the step's token (`set`: more
   * columns; `when`: a further condition).
   */
  private stepStart(
    claim: Claim,
    token: string,
    now: number,
    set = '',
    setArgs: InValue[] = [],
    when = '',
  ) {
    return {
      sql: `UPDATE firmware_rollouts SET claimed_until = ?, change_id = ?, update_at = ?${set}
        WHERE id = ? AND claim_token = ?${when}`,
      args: [claim.until, token, now, ...setArgs, claim.rolloutIntID, claim.token],
    }
  }

  async notify(
    claim: Claim,
    picks: { notified: number[]; updated: number[] },
    nextAt: number,
    now: number,
  ): Promise<Array<{ deviceIntID: number; attempt: number }>> {
    const token = randomUUID()
    const id = claim.rolloutIntID
    const guard = held(id, token)
    const results = await this.db.batch([
      this.stepStart(claim, token, now, ', next_at = ?', [nextAt], ` AND status = 'running'`),
      {
        sql: `UPDATE firmware_rollout_devices SET status = 'updated', progress = 100, change_id = ?, update_at = ?
          WHERE rollout_int_id = ? AND device_int_id ${IN_IDS} AND status = 'queued' AND ${guard.sql}`,
        args: [token, now, id, ids(picks.updated), ...guard.args],
      },
      {
        sql: `UPDATE firmware_rollout_devices SET status = 'notified', attempt = attempt + 1, notified_at = ?,
            delivered_at = NULL, deadline = NULL, progress = NULL, error = NULL, cancel_sent_at = NULL,
            change_id = ?, update_at = ?
          WHERE rollout_int_id = ? AND device_int_id ${IN_IDS} AND status = 'queued' AND ${guard.sql}`,
        args: [now, token, now, id, ids(picks.notified), ...guard.args],
      },
      ...deviceEvents(id, token, now),
      {
        sql: `SELECT device_int_id AS deviceIntID, attempt FROM firmware_rollout_devices
          WHERE rollout_int_id = ? AND change_id = ? AND status = 'notified' AND device_int_id ${IN_IDS}`,
        args: [id, token, ids(picks.notified)],
      },
    ])
    return results
      .at(-1)!
      .rows.map((r) => ({ deviceIntID: num(r.deviceIntID), attempt: num(r.attempt) }))
  }

  async expire(claim: Claim, retries: number, now: number): Promise<number> {
    const token = randomUUID()
    const id = claim.rolloutIntID
    const guard = held(id, token)
    const [, changed] = await this.db.batch([
      this.stepStart(claim, token, now),
      {
        sql: `UPDATE firmware_rollout_devices SET
            status = CASE WHEN attempt <= ? THEN 'queued' ELSE 'timed_out' END,
            error = 'no outcome reported in time (attempt ' || attempt || ')',
            notified_at = CASE WHEN attempt <= ? THEN NULL ELSE notified_at END,
            delivered_at = CASE WHEN attempt <= ? THEN NULL ELSE delivered_at END,
            deadline = NULL, change_id = ?, update_at = ?
          WHERE rollout_int_id = ? AND deadline IS NOT NULL AND deadline <= ? AND status IN ${IN_PROGRESS_SQL}
            AND ${guard.sql}`,
        args: [retries, retries, retries, token, now, id, now, ...guard.args],
      },
      ...deviceEvents(id, token, now),
    ])
    return changed!.rowsAffected
  }

  async finish(claim: Claim, status: RolloutStatus, now: number): Promise<boolean> {
    const token = randomUUID()
    const [changed] = await this.db.batch([
      {
        sql: `UPDATE firmware_rollouts SET status = ?, finished_at = ?, update_at = ?, change_id = ?,
            claim_token = NULL, claimed_until = 0
          WHERE id = ? AND claim_token = ? AND status IN ${OPEN_SQL}`,
        args: [status, now, now, token, claim.rolloutIntID, claim.token],
      },
      ...rolloutEvent(claim.rolloutIntID, token, now),
    ])
    return changed!.rowsAffected > 0
  }

  async announce(claim: Claim, now: number): Promise<boolean> {
    const token = randomUUID()
    const [changed] = await this.db.batch([
      this.stepStart(claim, token, now),
      ...rolloutEvent(claim.rolloutIntID, token, now),
    ])
    return changed!.rowsAffected > 0
  }

  async renew(claim: Claim): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE firmware_rollouts SET claimed_until = ? WHERE id = ? AND claim_token = ?',
      [claim.until, claim.rolloutIntID, claim.token],
    )
    return changed.changes > 0
  }

  async row(
    tenant: string,
    rolloutID: string,
    deviceIntID: number,
  ): Promise<RolloutDeviceRow | undefined> {
    const r = await this.db.one(
      `SELECT rd.rollout_int_id AS rolloutIntID, r.rollout_id AS rolloutID, r.status AS rolloutStatus, r.version,
          r.retries, r.timeout_minutes AS timeoutMinutes, rd.status, rd.attempt, rd.delivered_at AS deliveredAt
        FROM firmware_rollouts r JOIN firmware_rollout_devices rd ON rd.rollout_int_id = r.id
        WHERE r.tenant_id = ? AND r.rollout_id = ? AND rd.device_int_id = ?`,
      [tenant, rolloutID, deviceIntID],
    )
    if (!r) return undefined
    return {
      rolloutIntID: num(r.rolloutIntID),
      rolloutID: String(r.rolloutID),
      rolloutStatus: String(r.rolloutStatus) as RolloutStatus,
      version: String(r.version),
      retries: num(r.retries),
      timeoutMinutes: num(r.timeoutMinutes),
      status: String(r.status) as OtaStatus,
      attempt: num(r.attempt),
      deliveredAt: numOrNull(r.deliveredAt),
    }
  }

  async report(c: ReportChange, now: number): Promise<boolean> {
    const token = randomUUID()
    const retry = c.status === 'queued'
    const statements: InStatement[] = [
      {
        sql: `UPDATE firmware_rollout_devices SET status = ?, progress = coalesce(?, progress), error = ?,
            delivered_at = CASE WHEN ? THEN NULL ELSE coalesce(?, delivered_at) END,
            notified_at = CASE WHEN ? THEN NULL ELSE notified_at END,
            deadline = CASE WHEN ? THEN NULL ELSE coalesce(?, deadline) END, change_id = ?, update_at = ?
          WHERE rollout_int_id = ? AND device_int_id = ? AND status = ? AND attempt = ?`,
        args: [
          c.status,
          c.progress,
          c.error,
          retry ? 1 : 0,
          c.deliveredAt ?? null,
          retry ? 1 : 0,
          retry || c.status === 'updated' || c.status === 'failed' ? 1 : 0,
          c.deadline ?? null,
          token,
          now,
          c.rolloutIntID,
          c.deviceIntID,
          c.expected.status,
          c.expected.attempt,
        ],
      },
    ]
    if (c.softVersion !== undefined)
      statements.push({
        sql: `UPDATE devices SET soft_version = ?, update_at = ? WHERE id = ? AND EXISTS (SELECT 1 FROM
            firmware_rollout_devices WHERE rollout_int_id = ? AND device_int_id = ? AND change_id = ?)`,
        args: [c.softVersion, now, c.deviceIntID, c.rolloutIntID, c.deviceIntID, token],
      })
    const [changed] = await this.db.batch([
      ...statements,
      ...deviceEvents(c.rolloutIntID, token, now),
    ])
    return changed!.rowsAffected > 0
  }

  async pendingFor(deviceIntIDs: readonly number[]): Promise<PendingMessage[]> {
    if (!deviceIntIDs.length) return []
    const columns = `rd.rollout_int_id AS rolloutIntID, r.rollout_id AS rolloutID, rd.device_int_id AS deviceIntID,
      rd.attempt, r.firmware_id AS firmwareID, r.version, coalesce(f.size, 0) AS size,
      coalesce(f.sha256, '') AS sha256, r.timeout_minutes AS timeoutMinutes`
    const from = `FROM firmware_rollout_devices rd JOIN firmware_rollouts r ON r.id = rd.rollout_int_id
      LEFT JOIN firmware f ON f.id = r.firmware_int_id`
    const rows = await this.db.all(
      `SELECT 'notify' AS kind, ${columns} ${from}
        WHERE rd.device_int_id ${IN_IDS} AND rd.status = 'notified' AND rd.delivered_at IS NULL
      UNION ALL
      SELECT 'cancel' AS kind, ${columns} ${from}
        WHERE rd.device_int_id ${IN_IDS} AND rd.status = 'canceled' AND rd.delivered_at IS NOT NULL
          AND rd.cancel_sent_at IS NULL`,
      [ids(deviceIntIDs), ids(deviceIntIDs)],
    )
    return rows.map(pendingOf)
  }

  async delivered(m: PendingMessage, now: number): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE firmware_rollout_devices SET delivered_at = ?, deadline = ?
        WHERE rollout_int_id = ? AND device_int_id = ? AND attempt = ? AND status = 'notified'
          AND delivered_at IS NULL`,
      [now, now + m.timeoutMinutes * 60_000, m.rolloutIntID, m.deviceIntID, m.attempt],
    )
    return changed.changes > 0
  }

  async undelivered(m: PendingMessage, at: number): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE firmware_rollout_devices SET delivered_at = NULL, deadline = NULL
        WHERE rollout_int_id = ? AND device_int_id = ? AND attempt = ? AND status = 'notified' AND delivered_at = ?`,
      [m.rolloutIntID, m.deviceIntID, m.attempt, at],
    )
    return changed.changes > 0
  }

  async cancelSent(m: PendingMessage, now: number): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE firmware_rollout_devices SET cancel_sent_at = ?
        WHERE rollout_int_id = ? AND device_int_id = ? AND status = 'canceled' AND cancel_sent_at IS NULL`,
      [now, m.rolloutIntID, m.deviceIntID],
    )
    return changed.changes > 0
  }

  async changesSince(afterID: number, limit: number) {
    const [tops, rows] = await this.db.read([
      {
        sql: 'SELECT min(coalesce(max(id), 0), ?) AS n FROM outbox_events',
        args: [afterID + limit],
      },
      {
        sql: `SELECT DISTINCT json_extract(data, '$.deviceIntID') AS deviceIntID FROM outbox_events
          WHERE id > ? AND id <= ? AND type = 'firmware.device'
            AND json_extract(data, '$.status') IN ('notified', 'canceled')`,
        args: [afterID, afterID + limit],
      },
    ])
    const lastID = Math.max(afterID, num(tops?.[0]?.n ?? afterID))
    const deviceIntIDs = (rows ?? []).map((r) => num(r.deviceIntID)).filter((n) => n > 0)
    return { lastID, deviceIntIDs }
  }

  async usesFirmware(tenant: string, firmwareIntIDs: readonly number[]): Promise<boolean> {
    const row = await this.db.one(
      `SELECT 1 AS used FROM firmware_rollouts WHERE tenant_id = ? AND firmware_int_id ${IN_IDS}
        AND status IN ${OPEN_SQL} LIMIT 1`,
      [tenant, ids(firmwareIntIDs)],
    )
    return row !== undefined
  }
}
