import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  ListArgs,
  Page,
  PolicyBindingRepository,
  PolicyCandidateRecord,
  PolicyDeviceRecord,
  PolicyRecord,
} from '../types.ts'
import { POLICY_CANDIDATE_TABLE, POLICY_DEVICE_TABLE, type POLICY_TABLE } from '../fields/access.ts'
import { NotFound } from '../errors.ts'
import { listPage, marks, tableList, type TableListSpec } from './list.ts'
import { likeArg } from './group-devices.ts'

const bound = tableList(POLICY_DEVICE_TABLE, {
  from: 'FROM policy_devices pd JOIN devices d ON d.id = pd.device_int_id',
  where: 'pd.policy_int_id = ? AND d.tenant_id = ?',
  timeField: 'pd.create_at',
  idField: 'd.id',
})

const NOT_BOUND =
  'NOT EXISTS (SELECT 1 FROM policy_devices pd WHERE pd.policy_int_id = ? AND pd.device_int_id = d.id)'
const BOUND_TO_DEVICE =
  'EXISTS (SELECT 1 FROM policy_devices pd WHERE pd.policy_int_id = x.id AND pd.device_int_id = ?)'
const IN_GROUP = `EXISTS (SELECT 1 FROM group_devices gd JOIN groups g ON g.id = gd.group_int_id
  WHERE gd.device_int_id = d.id AND g.group_name LIKE ? ESCAPE '\\')`

const candidates = (byGroup: boolean) =>
  tableList(POLICY_CANDIDATE_TABLE, {
    from: 'FROM devices d JOIN products p ON p.id = d.product_int_id',
    where: `d.tenant_id = ? AND ${NOT_BOUND}${byGroup ? ` AND ${IN_GROUP}` : ''}`,
    timeField: 'd.create_at',
    idField: 'd.id',
  })

type Side = 'policy_int_id' | 'device_int_id'

/** The ids of `ids` that are not among `rows[].id`. */
function missing(ids: number[], rows: Array<Record<string, unknown>>): number[] {
  const found = new Set(rows.map((r) => Number(r.id)))
  return ids.filter((i) => !found.has(i))
}

/**
 * Bindings of policies to devices (devices and gateways alike), seen from either side. Binding is idempotent;
 * unbinding is all or none. Every id is checked against the caller's tenant first.
 */
export class PolicyBindingsRepo implements PolicyBindingRepository {
  constructor(
    private readonly db: Db,
    private readonly policyList: (where: string) => TableListSpec<typeof POLICY_TABLE>,
  ) {}

  /** A page of the devices bound to the tenant's policy `policyIntID`. */
  async devices(
    tenant: string,
    policyIntID: number,
    q: ListArgs,
  ): Promise<Page<PolicyDeviceRecord>> {
    await this.policy(tenant, policyIntID)
    return listPage(this.db, bound, [policyIntID, tenant], q)
  }

  /** Binds devices to a policy; an id that is not a device of the tenant is NotFound `devicesIntID`. */
  async bindDevices(tenant: string, policyIntID: number, ids: number[]) {
    await this.policy(tenant, policyIntID)
    if (!ids.length) return
    const rows = await this.db.all(
      `SELECT id FROM devices WHERE tenant_id = ? AND id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    const unknown = missing(ids, rows)
    if (unknown.length) throw new NotFound('devicesIntID', `no device ${unknown.join(', ')}`)
    await this.db.run(
      `INSERT OR IGNORE INTO policy_devices (policy_int_id, device_int_id, create_at)
       SELECT ?, d.id, ? FROM devices d WHERE d.tenant_id = ? AND d.id IN (${marks(ids.length)})`,
      [policyIntID, Date.now(), tenant, ...ids],
    )
  }

  /** Unbinds devices from a policy; an id not bound to it is NotFound `ids`. */
  async unbindDevices(tenant: string, policyIntID: number, ids: number[]) {
    await this.policy(tenant, policyIntID)
    await this.unbind(policyIntID, 'device_int_id', 'policy_int_id', ids, 'not bound to the policy')
  }

  /** A page of the tenant's devices not bound to the policy; `groupNameLike` keeps devices of a matching group. */
  async candidateDevices(
    tenant: string,
    policyIntID: number,
    q: ListArgs,
    groupNameLike?: string,
  ): Promise<Page<PolicyCandidateRecord>> {
    await this.policy(tenant, policyIntID)
    const args: InValue[] = [
      tenant,
      policyIntID,
      ...(groupNameLike ? [likeArg(groupNameLike)] : []),
    ]
    return listPage(this.db, candidates(Boolean(groupNameLike)), args, q)
  }

  /** A page of the policies bound to the tenant's device `deviceIntID`. */
  async policies(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<PolicyRecord>> {
    await this.device(tenant, deviceIntID)
    const where = `x.tenant_id = ? AND ${BOUND_TO_DEVICE}`
    return listPage(this.db, this.policyList(where), [tenant, deviceIntID], q)
  }

  /** Binds policies to a device; an id that is not a policy of the tenant is NotFound `ids`. */
  async bindPolicies(tenant: string, deviceIntID: number, ids: number[]) {
    await this.device(tenant, deviceIntID)
    if (!ids.length) return
    const rows = await this.db.all(
      `SELECT id FROM policies WHERE tenant_id = ? AND id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    const unknown = missing(ids, rows)
    if (unknown.length) throw new NotFound('ids', `no policy ${unknown.join(', ')}`)
    await this.db.run(
      `INSERT OR IGNORE INTO policy_devices (policy_int_id, device_int_id, create_at)
       SELECT x.id, ?, ? FROM policies x WHERE x.tenant_id = ? AND x.id IN (${marks(ids.length)})`,
      [deviceIntID, Date.now(), tenant, ...ids],
    )
  }

  /** Unbinds policies from a device; an id not bound to it is NotFound `ids`. */
  async unbindPolicies(tenant: string, deviceIntID: number, ids: number[]) {
    await this.device(tenant, deviceIntID)
    await this.unbind(deviceIntID, 'policy_int_id', 'device_int_id', ids, 'not bound to the device')
  }

  /** A page of the tenant's policies not yet bound to the device. */
  async candidatePolicies(
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
  ): Promise<Page<PolicyRecord>> {
    await this.device(tenant, deviceIntID)
    const where = `x.tenant_id = ? AND NOT ${BOUND_TO_DEVICE}`
    return listPage(this.db, this.policyList(where), [tenant, deviceIntID], q)
  }

  /** Deletes the bindings (`owner` fixed, `ids` on the other side), all or none. Column names are constants. */
  private async unbind(
    owner: number,
    idColumn: Side,
    ownerColumn: Side,
    ids: number[],
    why: string,
  ) {
    const rows = await this.db.all(
      `SELECT ${idColumn} AS id FROM policy_devices WHERE ${ownerColumn} = ? AND ${idColumn} IN (${marks(ids.length)})`,
      [owner, ...ids],
    )
    const absent = missing(ids, rows)
    if (absent.length) throw new NotFound('ids', `${why}: ${absent.join(', ')}`)
    await this.db.run(
      `DELETE FROM policy_devices WHERE ${ownerColumn} = ? AND ${idColumn} IN (${marks(ids.length)})`,
      [owner, ...ids],
    )
  }

  /** NotFound unless `id` is a policy of the tenant. */
  private async policy(tenant: string, id: number) {
    if (
      !(await this.db.one('SELECT id FROM policies WHERE tenant_id = ? AND id = ?', [tenant, id]))
    )
      throw new NotFound()
  }

  /** NotFound unless `id` is a device or gateway of the tenant. */
  private async device(tenant: string, id: number) {
    if (!(await this.db.one('SELECT id FROM devices WHERE tenant_id = ? AND id = ?', [tenant, id])))
      throw new NotFound()
  }
}
