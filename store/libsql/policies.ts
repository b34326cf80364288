import type { Db } from './db.ts'
import type {
  AclRule,
  ListArgs,
  Page,
  PolicyDetailRecord,
  PolicyInput,
  PolicyRecord,
  PolicyRepository,
} from '../types.ts'
import { POLICY_DETAIL_TABLE, POLICY_TABLE } from '../fields/access.ts'
import { writeColumns } from '../fields/table.ts'
import { Conflict, NotFound } from '../errors.ts'
import { listPage, tableList, type TableListSpec } from './list.ts'
import { deleteChecked, insertOf, readRecord, setClause } from './records.ts'
import { isUniqueViolation } from './sql-errors.ts'
import { PolicyBindingsRepo } from './policy-devices.ts'

const FROM = 'FROM policies x LEFT JOIN users u ON u.id = x.user_int_id'

/** The list of policies, narrowed by `where` (its first `?` is the tenant). */
export function policyListSpec(where = 'x.tenant_id = ?'): TableListSpec<typeof POLICY_TABLE> {
  return tableList(POLICY_TABLE, { from: FROM, where, timeField: 'x.create_at', idField: 'x.id' })
}

const list = policyListSpec()

const COLUMNS = writeColumns(POLICY_TABLE)

/** Topic access policies of a tenant; bindings to devices (both directions) are in `bindings`. */
export class PoliciesRepo implements PolicyRepository {
  readonly bindings: PolicyBindingsRepo

  constructor(private readonly db: Db) {
    this.bindings = new PolicyBindingsRepo(db, policyListSpec)
  }

  /** A page of the tenant's policies. */
  list(tenant: string, q: ListArgs): Promise<Page<PolicyRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One policy of the tenant with its bound devices as `mqtt_acl` (JSON text); NotFound when missing or foreign. */
  async get(tenant: string, id: number): Promise<PolicyDetailRecord> {
    const r = await readRecord(
      this.db,
      POLICY_DETAIL_TABLE,
      `${FROM} WHERE x.tenant_id = ? AND x.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound()
    return r
  }

  /** Creates a policy; the name is unique in the tenant (Conflict `name`). */
  async create(
    tenant: string,
    userIntID: number | null,
    p: Required<Omit<PolicyInput, 'description'>> & PolicyInput,
  ) {
    try {
      const insert = insertOf('policies', COLUMNS, p, {
        tenant_id: tenant,
        user_int_id: userIntID,
        create_at: Date.now(),
      })
      const r = await this.db.run(insert.sql, insert.args)
      return this.get(tenant, r.lastId)
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('name')
      throw e
    }
  }

  /** Edits a policy; absent fields keep their values. */
  async update(tenant: string, id: number, p: PolicyInput) {
    await this.get(tenant, id)
    try {
      const set = setClause(COLUMNS, p)
      await this.db.run(
        `UPDATE policies SET ${set.sql ? `${set.sql}, ` : ''}update_at = ? WHERE tenant_id = ? AND id = ?`,
        [...set.args, Date.now(), tenant, id],
      )
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('name')
      throw e
    }
    return this.get(tenant, id)
  }

  /** Deletes all of `ids` or none: refused while a policy is bound to devices. */
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      {
        table: 'policies',
        nameColumn: 'name',
        uses: { devices: 'SELECT count(*) FROM policy_devices pd WHERE pd.policy_int_id = x.id' },
        missing: (missing) => `no policy ${missing.join(', ')}`,
        refused: (r) =>
          `policy ${r.id} (${r.name}) is bound to ${r.uses[0]![1]} devices; unbind them first`,
      },
      ids,
    )
  }

  /** The rules of the tenant's policies bound to device (or gateway) `deviceIntID`, for the broker's ACL. */
  async rulesOfDevice(tenant: string, deviceIntID: number): Promise<AclRule[]> {
    const rows = await this.db.all(
      `SELECT p.topic AS topic, p.access AS access, p.allow AS allow
       FROM policy_devices pd JOIN policies p ON p.id = pd.policy_int_id
       WHERE pd.device_int_id = ? AND p.tenant_id = ?`,
      [deviceIntID, tenant],
    )
    return rows.map((r) => ({
      topic: String(r.topic),
      access: Number(r.access),
      allow: Number(r.allow),
    }))
  }
}
