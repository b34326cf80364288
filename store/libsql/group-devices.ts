import type { Db } from './db.ts'
import type {
  GroupMemberRecord,
  GroupMemberRepository,
  ListArgs,
  MembersAdded,
  Page,
} from '../types.ts'
import { GROUP_MEMBER_TABLE } from '../fields/products.ts'
import { Invalid, NotFound } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'

/** Most options a platform_select list answers (it is not paged). */
export const SELECT_CAP = 1000

const members = tableList(GROUP_MEMBER_TABLE, {
  from: `FROM group_devices gd JOIN devices d ON d.id = gd.device_int_id JOIN products p ON p.id = d.product_int_id`,
  where: 'gd.group_int_id = ? AND d.tenant_id = ?',
  timeField: 'd.create_at',
  idField: 'd.id',
})

/** `%text%` for LIKE ... ESCAPE '\' with the wildcards of `text` escaped. */
export const likeArg = (text: string) => `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`

/** Members of groups: devices (kind 'device') of the group's product. */
export class GroupMembersRepo implements GroupMemberRepository {
  constructor(private readonly db: Db) {}

  /** A page of the group's devices; NotFound when the group is not the tenant's. */
  async list(tenant: string, groupIntID: number, q: ListArgs): Promise<Page<GroupMemberRecord>> {
    await this.group(tenant, groupIntID)
    return listPage(this.db, members, [groupIntID, tenant], q)
  }

  /**
   * Adds devices to the group; members already there stay (idempotent). Every id must be a device of the tenant
   * (else NotFound `ids`) of the group's product (else Invalid `ids`). Answers how many were new and the count now.
   */
  async add(tenant: string, groupIntID: number, ids: number[]): Promise<MembersAdded> {
    const g = await this.group(tenant, groupIntID)
    const rows = await this.db.all(
      `SELECT id, device_name AS name, product_int_id AS productIntID FROM devices
       WHERE tenant_id = ? AND kind = 'device' AND id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    const found = new Set(rows.map((r) => Number(r.id)))
    const missing = ids.filter((i) => !found.has(i))
    if (missing.length) throw new NotFound('ids', `no device ${missing.join(', ')}`)
    const foreign = rows.filter((r) => Number(r.productIntID) !== g.productIntID)
    if (foreign.length) {
      const names = foreign.map((r) => `${Number(r.id)} (${String(r.name as string)})`).join(', ')
      throw new Invalid('ids', `not devices of the group's product ${g.productID}: ${names}`)
    }
    // The join re-checks the product in the same statement, so a concurrent product change cannot slip in.
    const [inserted, count] = await this.db.batch([
      {
        sql: `INSERT OR IGNORE INTO group_devices (group_int_id, device_int_id, create_at)
              SELECT g.id, d.id, ? FROM groups g
              JOIN devices d ON d.tenant_id = g.tenant_id AND d.product_int_id = g.product_int_id AND d.kind = 'device'
              WHERE g.tenant_id = ? AND g.id = ? AND d.id IN (${marks(ids.length)})`,
        args: [Date.now(), tenant, groupIntID, ...ids],
      },
      { sql: 'SELECT count(*) AS n FROM group_devices WHERE group_int_id = ?', args: [groupIntID] },
    ])
    return {
      groupIntID,
      groupID: g.groupID,
      added: inserted!.rowsAffected,
      deviceCount: Number(count!.rows[0]?.n ?? 0),
    }
  }

  /** Removes devices from the group, all or none: an id that is not a member is NotFound `ids`. */
  async remove(tenant: string, groupIntID: number, ids: number[]) {
    await this.group(tenant, groupIntID)
    const rows = await this.db.all(
      `SELECT device_int_id AS id FROM group_devices WHERE group_int_id = ? AND device_int_id IN (${marks(ids.length)})`,
      [groupIntID, ...ids],
    )
    const found = new Set(rows.map((r) => Number(r.id)))
    const missing = ids.filter((i) => !found.has(i))
    if (missing.length) throw new NotFound('ids', `not in the group: ${missing.join(', ')}`)
    await this.db.run(
      `DELETE FROM group_devices WHERE group_int_id = ? AND device_int_id IN (${marks(ids.length)})`,
      [groupIntID, ...ids],
    )
  }

  /** Devices of the group's product not in the group, newest first, at most SELECT_CAP, as select options. */
  async notJoined(
    tenant: string,
    groupIntID: number,
    nameLike?: string,
  ): Promise<Array<{ label: string; value: number }>> {
    const g = await this.group(tenant, groupIntID)
    const like = nameLike ? `AND d.device_name LIKE ? ESCAPE '\\'` : ''
    const rows = await this.db.all(
      `SELECT d.device_name AS label, d.id AS value FROM devices d
       WHERE d.tenant_id = ? AND d.kind = 'device' AND d.product_int_id = ? ${like}
         AND NOT EXISTS (SELECT 1 FROM group_devices gd WHERE gd.group_int_id = ? AND gd.device_int_id = d.id)
       ORDER BY d.create_at DESC, d.id DESC LIMIT ?`,
      [tenant, g.productIntID, ...(nameLike ? [likeArg(nameLike)] : []), groupIntID, SELECT_CAP],
    )
    return rows.map((r) => ({ label: String(r.label), value: Number(r.value) }))
  }

  /** The tenant's group `id` (its product and groupID); NotFound otherwise. */
  private async group(
    tenant: string,
    id: number,
  ): Promise<{ productIntID: number; productID: string; groupID: string }> {
    const r = await this.db.one(
      `SELECT g.product_int_id AS productIntID, p.product_id AS productID, g.group_id AS groupID
       FROM groups g JOIN products p ON p.id = g.product_int_id WHERE g.tenant_id = ? AND g.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound()
    return {
      productIntID: Number(r.productIntID),
      productID: String(r.productID),
      groupID: String(r.groupID),
    }
  }
}
