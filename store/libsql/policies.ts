import type { Db } from './db.ts'
import type { AclRule, PolicyInput, PolicyRepository } from '../types.ts'
import { POLICY_DETAIL_TABLE, POLICY_TABLE } from '../fields/access.ts'
import { PolicyBindingsRepo } from './policy-devices.ts'
import { TableRepo } from './table-repository.ts'

/**
 * Topic access policies of a tenant; bindings to devices (both directions) are in `bindings`. `get` answers a
 * policy with its bound devices as `mqtt_acl` (JSON text). A delete is refused while a policy is bound to devices.
 */
export class PoliciesRepo
  extends TableRepo<typeof POLICY_TABLE, typeof POLICY_DETAIL_TABLE, PolicyInput>
  implements PolicyRepository
{
  readonly bindings: PolicyBindingsRepo

  constructor(db: Db) {
    super(db, {
      list: POLICY_TABLE,
      detail: POLICY_DETAIL_TABLE,
      from: 'FROM policies x LEFT JOIN users u ON u.id = x.user_int_id',
      unique: { name: 'name' },
      remove: {
        nameColumn: 'name',
        uses: { devices: 'SELECT count(*) FROM policy_devices pd WHERE pd.policy_int_id = x.id' },
        missing: (missing) => `no policy ${missing.join(', ')}`,
        refused: (r) =>
          `policy ${r.id} (${r.name}) is bound to ${r.uses[0]![1]} devices; unbind them first`,
      },
    })
    this.bindings = new PolicyBindingsRepo(db, (where) => ({ ...this.listSpec, where }))
  }

  /** Creates a policy; the name is unique in the tenant (Conflict `name`). */
  create(
    tenant: string,
    userIntID: number | null,
    p: Required<Omit<PolicyInput, 'description'>> & PolicyInput,
  ) {
    return this.insert(tenant, p, { user_int_id: userIntID })
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
