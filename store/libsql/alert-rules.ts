import type { InValue } from '@libsql/client'
import type { Db, Row } from './db.ts'
import type {
  AlertRuleInput,
  AlertRuleRecord,
  AlertRuleRepository,
  AlertState,
  ListArgs,
  Page,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, marks, type ListSpec } from './list.ts'

const COLUMNS = `SELECT r.id AS id, r.tenant_id AS tenantID, r.rule_name AS ruleName,
  r.product_int_id AS productIntID, p.product_id AS productID, p.product_name AS productName,
  r.device_int_ids AS deviceIntIDs, r.condition AS condition, r.alert_severity AS alertSeverity,
  r.for_seconds AS forSeconds, r.clear_condition AS clearCondition, r.clear_for_seconds AS clearForSeconds,
  r.no_data_seconds AS noDataSeconds, r.alert_content AS alertContent, r.enable AS enable,
  r.user_int_id AS userIntID, u.username AS createUser, r.create_at AS createAt, r.update_at AS updateAt`

const FROM = `FROM alert_rules r JOIN products p ON p.id = r.product_int_id
  LEFT JOIN users u ON u.id = r.user_int_id`

const list: ListSpec = {
  columns: COLUMNS,
  from: FROM,
  where: 'r.tenant_id = ?',
  fields: {
    ruleName: 'r.rule_name',
    productID: 'p.product_id',
    alertSeverity: 'r.alert_severity',
    enable: 'r.enable',
    updateAt: 'r.update_at',
  },
  timeField: 'r.create_at',
  idField: 'r.id',
}

/** The columns a caller sets, in order, with the value of each. */
const WRITABLE: Array<[string, (r: AlertRuleInput) => InValue]> = [
  ['rule_name', (r) => r.ruleName],
  ['product_int_id', (r) => r.productIntID],
  ['device_int_ids', (r) => (r.deviceIntIDs ? JSON.stringify(r.deviceIntIDs) : null)],
  ['condition', (r) => r.condition],
  ['alert_severity', (r) => r.alertSeverity],
  ['for_seconds', (r) => r.forSeconds],
  ['clear_condition', (r) => r.clearCondition],
  ['clear_for_seconds', (r) => r.clearForSeconds],
  ['no_data_seconds', (r) => r.noDataSeconds],
  ['alert_content', (r) => r.alertContent],
  ['enable', (r) => r.enable],
]

const recordOf = (r: Row): AlertRuleRecord => ({
  ...(r as unknown as AlertRuleRecord),
  deviceIntIDs:
    typeof r.deviceIntIDs === 'string' ? (JSON.parse(r.deviceIntIDs) as number[]) : null,
})

const stateOf = (r: Row): AlertState => ({
  ruleID: Number(r.ruleID),
  deviceIntID: Number(r.deviceIntID),
  phase: r.phase === 'clear' || r.phase === 'seen' ? r.phase : 'raise',
  since: Number(r.since),
  detail: typeof r.detail === 'string' ? JSON.parse(r.detail) : null,
})

const STATE = `SELECT s.rule_id AS ruleID, s.device_int_id AS deviceIntID, s.phase AS phase, s.since AS since,
  s.detail AS detail FROM alert_states s`

/** Alert rules of a tenant and the alert engine's pending waits (alert_states). */
export class AlertRulesRepo implements AlertRuleRepository {
  constructor(private readonly db: Db) {}

  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, list, [tenant], q).then((p) => ({
      ...p,
      items: p.items.map((r) => recordOf(r) as unknown as Row),
    }))
  }

  async get(tenant: string, id: number): Promise<AlertRuleRecord> {
    const r = await this.db.one(`${COLUMNS} ${FROM} WHERE r.tenant_id = ? AND r.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound()
    return recordOf(r)
  }

  async create(
    tenant: string,
    userIntID: number | null,
    r: AlertRuleInput,
    now: number,
  ): Promise<AlertRuleRecord> {
    const columns = ['tenant_id', ...WRITABLE.map(([c]) => c), 'user_int_id', 'create_at']
    const { lastId } = await this.db.run(
      `INSERT INTO alert_rules (${columns.join(', ')}) VALUES (${marks(columns.length)})`,
      [tenant, ...WRITABLE.map(([, v]) => v(r)), userIntID, now],
    )
    return this.get(tenant, lastId)
  }

  async update(tenant: string, id: number, r: AlertRuleInput, now: number) {
    const sets = [...WRITABLE.map(([c]) => c), 'update_at'].map((c) => `${c} = ?`)
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE alert_rules SET ${sets.join(', ')} WHERE tenant_id = ? AND id = ? RETURNING id`,
        args: [...WRITABLE.map(([, v]) => v(r)), now, tenant, id],
      },
      {
        sql: 'DELETE FROM alert_states WHERE rule_id IN (SELECT id FROM alert_rules WHERE tenant_id = ? AND id = ?)',
        args: [tenant, id],
      },
    ])
    if (!rs?.rows.length) throw new NotFound()
    return this.get(tenant, id)
  }

  async delete(tenant: string, ids: number[]): Promise<void> {
    const where = `tenant_id = ? AND id IN (${marks(ids.length)})`
    const rows = await this.db.all(`SELECT id FROM alert_rules WHERE ${where}`, [tenant, ...ids])
    if (rows.length !== ids.length) {
      const found = new Set(rows.map((r) => Number(r.id)))
      throw new NotFound('ids', `no alert rule ${ids.filter((i) => !found.has(i)).join(', ')}`)
    }
    await this.db.batch([
      { sql: `DELETE FROM alert_states WHERE rule_id IN (${marks(ids.length)})`, args: ids },
      { sql: `DELETE FROM alert_rules WHERE ${where}`, args: [tenant, ...ids] },
    ])
  }

  async enabledOf(productIntID: number): Promise<AlertRuleRecord[]> {
    const rows = await this.db.all(
      `${COLUMNS} ${FROM} WHERE r.product_int_id = ? AND r.enable = 1 ORDER BY r.id`,
      [productIntID],
    )
    return rows.map(recordOf)
  }

  async states(deviceIntIDs: readonly number[]): Promise<AlertState[]> {
    if (!deviceIntIDs.length) return []
    const rows = await this.db.all(
      `${STATE} WHERE s.device_int_id IN (${marks(deviceIntIDs.length)})`,
      [...deviceIntIDs],
    )
    return rows.map(stateOf)
  }

  async saveStates(
    put: readonly AlertState[],
    drop: ReadonlyArray<{ ruleID: number; deviceIntID: number }>,
  ): Promise<void> {
    if (!put.length && !drop.length) return
    await this.db.batch([
      ...drop.map((d) => ({
        sql: 'DELETE FROM alert_states WHERE rule_id = ? AND device_int_id = ?',
        args: [d.ruleID, d.deviceIntID],
      })),
      ...put.map((s) => ({
        // a wait of the same phase keeps the time it began
        sql: `INSERT INTO alert_states (rule_id, device_int_id, phase, since, detail) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (rule_id, device_int_id) DO UPDATE SET phase = excluded.phase, since = excluded.since,
          detail = excluded.detail WHERE phase <> excluded.phase OR excluded.phase = 'seen'`,
        args: [s.ruleID, s.deviceIntID, s.phase, s.since, JSON.stringify(s.detail ?? null)],
      })),
    ])
  }

  async dueStates(now: number, limit: number): Promise<AlertState[]> {
    const rows = await this.db.all(
      `${STATE} JOIN alert_rules r ON r.id = s.rule_id
       WHERE r.enable = 1 AND s.phase <> 'seen' AND s.since + 1000 * iif(s.phase = 'raise', r.for_seconds, r.clear_for_seconds) <= ?
       ORDER BY s.since LIMIT ?`,
      [now, limit],
    )
    return rows.map(stateOf)
  }

  async claimState(s: AlertState): Promise<boolean> {
    const { changes } = await this.db.run(
      'DELETE FROM alert_states WHERE rule_id = ? AND device_int_id = ? AND phase = ? AND since = ?',
      [s.ruleID, s.deviceIntID, s.phase, s.since],
    )
    return changes > 0
  }
}
