import type { Db } from './db.ts'
import type { AclRule, ListArgs, Page, PolicyInput, PolicyRepository, Row } from '../types.ts'
import { Conflict, NotFound } from '../errors.ts'
import { listPage, type ListSpec } from './list.ts'
import { deleteChecked } from './records.ts'
import { isUniqueViolation } from './sql-errors.ts'
import { PolicyBindingsRepo } from './policy-devices.ts'

const COLUMNS = `SELECT x.id AS id, x.name AS name, x.topic AS topic, x.access AS access, x.allow AS allow,
  x.description AS description, x.user_int_id AS userIntID, u.username AS createUser,
  x.create_at AS createAt, x.update_at AS updateAt`

/** One `{id}` per bound device, ordered by device id (ActorCloud's per-device ACL rows). */
const ACL = `(SELECT json_group_array(json_object('id', b.device_int_id)) FROM
  (SELECT device_int_id FROM policy_devices WHERE policy_int_id = x.id ORDER BY device_int_id) b) AS mqtt_acl`

const FROM = 'FROM policies x LEFT JOIN users u ON u.id = x.user_int_id'

/** The list of policies, narrowed by `where` (its first `?` is the tenant). */
export function policyListSpec(where = 'x.tenant_id = ?'): ListSpec {
  return {
    columns: COLUMNS,
    from: FROM,
    where,
    fields: {
      name: 'x.name',
      topic: 'x.topic',
      access: 'x.access',
      allow: 'x.allow',
      updateAt: 'x.update_at',
    },
    timeField: 'x.create_at',
    idField: 'x.id',
  }
}

const list = policyListSpec()

/** Topic access policies of a tenant; bindings to devices (both directions) are in `bindings`. */
export class PoliciesRepo implements PolicyRepository {
  readonly bindings: PolicyBindingsRepo

  constructor(private readonly db: Db) {
    this.bindings = new PolicyBindingsRepo(db, policyListSpec)
  }

  /** A page of the tenant's policies. */
  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One policy of the tenant with its bound devices as `mqtt_acl` (JSON text); NotFound when missing or foreign. */
  async get(tenant: string, id: number): Promise<Row> {
    const r = await this.db.one(`${COLUMNS}, ${ACL} ${FROM} WHERE x.tenant_id = ? AND x.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound()
    return r as Row
  }

  /** Creates a policy; the name is unique in the tenant (Conflict `name`). */
  async create(
    tenant: string,
    userIntID: number | null,
    p: Required<Omit<PolicyInput, 'description'>> & PolicyInput,
  ) {
    try {
      const r = await this.db.run(
        `INSERT INTO policies (tenant_id, name, topic, access, allow, description, user_int_id, create_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [tenant, p.name, p.topic, p.access, p.allow, p.description ?? null, userIntID, Date.now()],
      )
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
      await this.db.run(
        `UPDATE policies SET name = coalesce(?, name), topic = coalesce(?, topic), access = coalesce(?, access),
           allow = coalesce(?, allow), description = CASE WHEN ? THEN ? ELSE description END, update_at = ?
         WHERE tenant_id = ? AND id = ?`,
        [
          p.name ?? null,
          p.topic ?? null,
          p.access ?? null,
          p.allow ?? null,
          p.description !== undefined ? 1 : 0,
          p.description ?? null,
          Date.now(),
          tenant,
          id,
        ],
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
