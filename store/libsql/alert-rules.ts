import type { Db, Row } from './db.ts'
import type {
  AlertRuleInput,
  AlertRuleRecord,
  AlertRuleRepository,
  AlertState,
  ListArgs,
  Page,
} from '../types.ts'
import { ALERT_RULE_TABLE, type StoredAlertRule } from '../fields/alert-rules.ts'
import { marks } from './list.ts'
import { readRecords } from './records.ts'
import { TableRepo } from './table-repository.ts'

const FROM = `FROM alert_rules r JOIN products p ON p.id = r.product_int_id
  LEFT JOIN users u ON u.id = r.user_int_id`

/** The stored rule with its device ids parsed. */
const recordOf = (r: StoredAlertRule): AlertRuleRecord => ({
  ...r,
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

/**
 * Alert rules of a tenant and the alert engine's pending waits (alert_states). An edit sets every column (the
 * service merged it) and drops the rule's waits; a delete takes them too.
 */
export class AlertRulesRepo implements AlertRuleRepository {
  private readonly rules: TableRepo<typeof ALERT_RULE_TABLE>

  constructor(private readonly db: Db) {
    this.rules = new TableRepo(db, {
      list: ALERT_RULE_TABLE,
      from: FROM,
      remove: {
        nameColumn: 'rule_name',
        uses: {},
        missing: (missing) => `no alert rule ${missing.join(', ')}`,
        before: (ids) => [
          { sql: `DELETE FROM alert_states WHERE rule_id IN (${marks(ids.length)})`, args: ids },
        ],
      },
    })
  }

  async list(tenant: string, q: ListArgs): Promise<Page<AlertRuleRecord>> {
    const page = await this.rules.list(tenant, q)
    return { ...page, items: page.items.map(recordOf) }
  }

  async get(tenant: string, id: number): Promise<AlertRuleRecord> {
    return recordOf(await this.rules.get(tenant, id))
  }

  async create(
    tenant: string,
    userIntID: number | null,
    r: AlertRuleInput,
    now: number,
  ): Promise<AlertRuleRecord> {
    return recordOf(await this.rules.insert(tenant, r, { user_int_id: userIntID }, { now }))
  }

  async update(tenant: string, id: number, r: AlertRuleInput, now: number) {
    const dropWaits = {
      sql: 'DELETE FROM alert_states WHERE rule_id IN (SELECT id FROM alert_rules WHERE tenant_id = ? AND id = ?)',
      args: [tenant, id],
    }
    return recordOf(await this.rules.write(tenant, id, r, { now, also: [dropWaits] }))
  }

  delete(tenant: string, ids: number[]): Promise<void> {
    return this.rules.delete(tenant, ids)
  }

  async enabledOf(productIntID: number): Promise<AlertRuleRecord[]> {
    const rows = await readRecords(
      this.db,
      ALERT_RULE_TABLE,
      `${FROM} WHERE r.product_int_id = ? AND r.enable = 1 ORDER BY r.id`,
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
