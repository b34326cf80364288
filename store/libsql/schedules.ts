import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  ListArgs,
  ScheduleInput,
  ScheduleKind,
  ScheduleRecord,
  ScheduleRepository,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'
import { readRecords, readRequired } from './records.ts'
import { SCHEDULE_TABLE } from '../fields/schedules.ts'

const FROM = 'FROM schedules s LEFT JOIN users u ON u.id = s.user_int_id'

const list = tableList(SCHEDULE_TABLE, {
  from: FROM,
  where: 's.tenant_id = ? AND s.kind = ?',
  timeField: 's.create_at',
  idField: 's.id',
  count: { from: 'FROM schedules s', baseAlias: 's' },
})

/** The columns a caller sets, in order, with the value of each from a ScheduleInput. */
const WRITABLE: Array<[string, (s: ScheduleInput) => InValue]> = [
  ['schedule_name', (s) => s.scheduleName],
  ['schedule_type', (s) => s.scheduleType],
  ['crontab_time', (s) => s.crontabTime],
  ['interval_minute', (s) => s.IntervalMinute],
  ['cron', (s) => s.cron],
  ['topic', (s) => s.topic],
  ['payload', (s) => s.payload],
  ['qos', (s) => s.qos],
  ['timeout', (s) => s.timeout],
  ['ttl', (s) => s.ttl],
  ['need_ack', (s) => s.needAck],
  ['enable', (s) => s.enable],
  ['next_run_at', (s) => s.nextRunAt],
]

/** The target columns of a kind: the device's or the group's record id and string id. */
function targetColumns(kind: ScheduleKind): [string, string] {
  return kind === 'device' ? ['device_int_id', 'device_id'] : ['group_int_id', 'group_id']
}

/** Scheduled commands of a tenant; firing is claimed with a compare-and-set on next_run_at. */
export class SchedulesRepo implements ScheduleRepository {
  constructor(private readonly db: Db) {}

  list(tenant: string, kind: ScheduleKind, q: ListArgs) {
    return listPage(this.db, list, [tenant, kind], q)
  }

  async get(tenant: string, kind: ScheduleKind, id: number): Promise<ScheduleRecord> {
    return readRequired(
      this.db,
      SCHEDULE_TABLE,
      `${FROM} WHERE s.tenant_id = ? AND s.kind = ? AND s.id = ?`,
      [tenant, kind, id],
    )
  }

  async create(
    tenant: string,
    kind: ScheduleKind,
    userIntID: number | null,
    s: ScheduleInput,
  ): Promise<ScheduleRecord> {
    const [intCol, idCol] = targetColumns(kind)
    const columns = ['tenant_id', 'kind', intCol, idCol, ...WRITABLE.map(([c]) => c)]
    const r = await this.db.run(
      `INSERT INTO schedules (${columns.join(', ')}, user_int_id, create_at)
       VALUES (${marks(columns.length + 2)})`,
      [
        tenant,
        kind,
        s.targetIntID,
        s.targetID,
        ...WRITABLE.map(([, v]) => v(s)),
        userIntID,
        Date.now(),
      ],
    )
    return this.get(tenant, kind, r.lastId)
  }

  async update(
    tenant: string,
    kind: ScheduleKind,
    id: number,
    s: ScheduleInput,
  ): Promise<ScheduleRecord> {
    const [intCol, idCol] = targetColumns(kind)
    const sets = [intCol, idCol, ...WRITABLE.map(([c]) => c), 'update_at'].map((c) => `${c} = ?`)
    const { changes } = await this.db.run(
      `UPDATE schedules SET ${sets.join(', ')} WHERE tenant_id = ? AND kind = ? AND id = ?`,
      [s.targetIntID, s.targetID, ...WRITABLE.map(([, v]) => v(s)), Date.now(), tenant, kind, id],
    )
    if (changes === 0) throw new NotFound()
    return this.get(tenant, kind, id)
  }

  async delete(tenant: string, kind: ScheduleKind, ids: number[]): Promise<void> {
    const rows = await this.db.all(
      `SELECT id FROM schedules WHERE tenant_id = ? AND kind = ? AND id IN (${marks(ids.length)})`,
      [tenant, kind, ...ids],
    )
    if (rows.length !== ids.length) {
      const found = new Set(rows.map((r) => Number(r.id)))
      throw new NotFound('ids', `no schedule ${ids.filter((i) => !found.has(i)).join(', ')}`)
    }
    await this.db.run(
      `DELETE FROM schedules WHERE tenant_id = ? AND kind = ? AND id IN (${marks(ids.length)})`,
      [tenant, kind, ...ids],
    )
  }

  async due(now: number, limit: number): Promise<ScheduleRecord[]> {
    return readRecords(
      this.db,
      SCHEDULE_TABLE,
      `${FROM} WHERE s.enable = 1 AND s.next_run_at IS NOT NULL AND s.next_run_at <= ?
       ORDER BY s.next_run_at, s.id LIMIT ?`,
      [now, limit],
    )
  }

  async claim(
    id: number,
    dueAt: number,
    nextRunAt: number | null,
  ): Promise<ScheduleRecord | undefined> {
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE schedules SET next_run_at = ?, last_run_at = ?, last_task_id = NULL
          WHERE id = ? AND next_run_at = ? AND enable = 1 RETURNING id, tenant_id AS tenantID, kind`,
        args: [nextRunAt, dueAt, id, dueAt],
      },
    ])
    const row = rs?.rows[0]
    if (!row) return undefined
    return this.get(String(row.tenantID), row.kind as ScheduleKind, id).catch(() => undefined)
  }

  async setLastTask(id: number, taskID: string): Promise<void> {
    await this.db.run('UPDATE schedules SET last_task_id = ? WHERE id = ?', [taskID, id])
  }
}
