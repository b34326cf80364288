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

/** One side of a binding: its records (`table`, their column `column`), and what is bound to them (`other`). */
interface BindSide {
  table: 'policies' | 'devices'
  column: Side
  other: { table: 'devices' | 'policies'; column: Side; field: string; what: string }
  notBound: string
}

const POLICY: BindSide = {
  table: 'policies',
  column: 'policy_int_id',
  other: { table: 'devices', column: 'device_int_id', field: 'devicesIntID', what: 'device' },
  notBound: 'not bound to the policy',
}

const DEVICE: BindSide = {
  table: 'devices',
  column: 'device_int_id',
  other: { table: 'policies', column: 'policy_int_id', field: 'ids', what: 'policy' },
  notBound: 'not bound to the device',
}

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
    await this.owner(tenant, POLICY, policyIntID)
    return listPage(this.db, bound, [policyIntID, tenant], q)
  }

  /** Binds devices to a policy; an id that is not a device of the tenant is NotFound `devicesIntID`. */
  bindDevices(tenant: string, policyIntID: number, ids: number[]) {
    return this.bind(tenant, POLICY, policyIntID, ids)
  }

  /** Unbinds devices from a policy; an id not bound to it is NotFound `ids`. */
  unbindDevices(tenant: string, policyIntID: number, ids: number[]) {
    return this.unbind(tenant, POLICY, policyIntID, ids)
  }

  /** A page of the tenant's devices not bound to the policy; `groupNameLike` keeps devices of a matching group. */
  async candidateDevices(
    tenant: string,
    policyIntID: number,
    q: ListArgs,
    groupNameLike?: string,
  ): Promise<Page<PolicyCandidateRecord>> {
    await this.owner(tenant, POLICY, policyIntID)
    const args: InValue[] = [
      tenant,
      policyIntID,
      ...(groupNameLike ? [likeArg(groupNameLike)] : []),
    ]
    return listPage(this.db, candidates(Boolean(groupNameLike)), args, q)
  }

  /** A page of the policies bound to the tenant's device `deviceIntID`. */
  policies(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<PolicyRecord>> {
    return this.policiesOf(tenant, deviceIntID, q, BOUND_TO_DEVICE)
  }

  /** Binds policies to a device; an id that is not a policy of the tenant is NotFound `ids`. */
  bindPolicies(tenant: string, deviceIntID: number, ids: number[]) {
    return this.bind(tenant, DEVICE, deviceIntID, ids)
  }

  /** Unbinds policies from a device; an id not bound to it is NotFound `ids`. */
  unbindPolicies(tenant: string, deviceIntID: number, ids: number[]) {
    return this.unbind(tenant, DEVICE, deviceIntID, ids)
  }

  /** A page of the tenant's policies not yet bound to the device. */
  candidatePolicies(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<PolicyRecord>> {
    return this.policiesOf(tenant, deviceIntID, q, `NOT ${BOUND_TO_DEVICE}`)
  }

  /** A page of the tenant's policies that `cond` keeps (its `?` the device `deviceIntID` of the tenant). */
  private async policiesOf(tenant: string, deviceIntID: number, q: ListArgs, cond: string) {
    await this.owner(tenant, DEVICE, deviceIntID)
    const where = `x.tenant_id = ? AND ${cond}`
    return listPage(this.db, this.policyList(where), [tenant, deviceIntID], q)
  }

  /** NotFound unless `id` is a record of side `s` of the tenant (a policy; a device or gateway). */
  private async owner(tenant: string, s: BindSide, id: number) {
    const sql = `SELECT id FROM ${s.table} WHERE tenant_id = ? AND id = ?`
    if (!(await this.db.one(sql, [tenant, id]))) throw new NotFound()
  }

  /**
   * Binds the tenant's records `ids` of the other side (else NotFound naming its field) to `owner`; binding
   * twice is no change.
   */
  private async bind(tenant: string, s: BindSide, owner: number, ids: number[]) {
    await this.owner(tenant, s, owner)
    if (!ids.length) return
    const { other } = s
    const rows = await this.db.all(
      `SELECT id FROM ${other.table} WHERE tenant_id = ? AND id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    const unknown = missing(ids, rows)
    if (unknown.length) throw new NotFound(other.field, `no ${other.what} ${unknown.join(', ')}`)
    await this.db.run(
      `INSERT OR IGNORE INTO policy_devices (${s.column}, ${other.column}, create_at)
       SELECT ?, x.id, ? FROM ${other.table} x WHERE x.tenant_id = ? AND x.id IN (${marks(ids.length)})`,
      [owner, Date.now(), tenant, ...ids],
    )
  }

  /** Deletes the bindings of `owner` to `ids`, all or none: an id not bound to it is NotFound `ids`. */
  private async unbind(tenant: string, s: BindSide, owner: number, ids: number[]) {
    await this.owner(tenant, s, owner)
    const id = s.other.column
    const rows = await this.db.all(
      `SELECT ${id} AS id FROM policy_devices WHERE ${s.column} = ? AND ${id} IN (${marks(ids.length)})`,
      [owner, ...ids],
    )
    const absent = missing(ids, rows)
    if (absent.length) throw new NotFound('ids', `${s.notBound}: ${absent.join(', ')}`)
    await this.db.run(
      `DELETE FROM policy_devices WHERE ${s.column} = ? AND ${id} IN (${marks(ids.length)})`,
      [owner, ...ids],
    )
  }
}
