import type { Db } from './db.ts'
import type { GroupInput, GroupRepository, ListArgs, Page, Row } from '../types.ts'
import { Conflict, Invalid, NotFound, Referenced } from '../errors.ts'
import { listPage, marks, type ListSpec } from './list.ts'
import { isUniqueViolation, uniqueColumns } from './sql-errors.ts'
import { GroupMembersRepo } from './group-devices.ts'
import { randomId } from '../../src/kernel/secrets.ts'

const COLUMNS = `SELECT g.id AS id, g.group_id AS groupID, g.group_name AS groupName, g.description AS description,
  p.product_id AS productID, p.product_name AS productName, g.product_int_id AS productIntID,
  (SELECT count(*) FROM group_devices gd WHERE gd.group_int_id = g.id) AS deviceCount,
  g.user_int_id AS userIntID, u.username AS createUser, g.create_at AS createAt, g.update_at AS updateAt`

const FROM =
  'FROM groups g JOIN products p ON p.id = g.product_int_id LEFT JOIN users u ON u.id = g.user_int_id'

const list: ListSpec = {
  columns: COLUMNS,
  from: FROM,
  where: 'g.tenant_id = ?',
  fields: {
    groupName: 'g.group_name',
    groupID: 'g.group_id',
    productID: 'p.product_id',
    description: 'g.description',
    updateAt: 'g.update_at',
  },
  timeField: 'g.create_at',
  idField: 'g.id',
}

/** Groups of a tenant: each bundles devices of one product (members: `members`). */
export class GroupsRepo implements GroupRepository {
  readonly members: GroupMembersRepo

  constructor(private readonly db: Db) {
    this.members = new GroupMembersRepo(db)
  }

  /** A page of the tenant's groups with their member counts. */
  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One group of the tenant; NotFound when missing or foreign. */
  async get(tenant: string, id: number): Promise<Row> {
    const r = await this.db.one(`${COLUMNS} ${FROM} WHERE g.tenant_id = ? AND g.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound()
    return r as Row
  }

  /** Creates a group with a generated groupID; the product is named by its string productID. */
  async create(
    tenant: string,
    userIntID: number | null,
    g: Required<Pick<GroupInput, 'productID' | 'groupName'>> & GroupInput,
  ) {
    const productIntID = await this.productIntID(tenant, g.productID)
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await this.db.run(
          `INSERT INTO groups (tenant_id, group_id, group_name, description, product_int_id, user_int_id, create_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [
            tenant,
            randomId(6),
            g.groupName,
            g.description ?? null,
            productIntID,
            userIntID,
            Date.now(),
          ],
        )
        return this.get(tenant, r.lastId)
      } catch (e) {
        if (!isUniqueViolation(e)) throw e
        if (uniqueColumns(e).includes('groups.group_name')) throw new Conflict('groupName')
        if (attempt > 5) throw e
      }
    }
  }

  /** Edits a group; absent fields keep their values. The product may change only while the group is empty. */
  async update(tenant: string, id: number, g: GroupInput) {
    const current = await this.get(tenant, id)
    const moving = g.productID !== undefined && g.productID !== current.productID
    const productIntID = moving ? await this.productIntID(tenant, g.productID!) : null
    const emptyOnly =
      'NOT EXISTS (SELECT 1 FROM group_devices gd WHERE gd.group_int_id = groups.id)'
    let changes: number
    try {
      changes = (
        await this.db.run(
          `UPDATE groups SET group_name = coalesce(?, group_name), product_int_id = coalesce(?, product_int_id),
           description = CASE WHEN ? THEN ? ELSE description END, update_at = ?
         WHERE tenant_id = ? AND id = ? AND (? OR ${emptyOnly})`,
          [
            g.groupName ?? null,
            productIntID,
            g.description !== undefined ? 1 : 0,
            g.description ?? null,
            Date.now(),
            tenant,
            id,
            moving ? 0 : 1,
          ],
        )
      ).changes
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('groupName')
      throw e
    }
    if (changes === 0 && moving)
      throw new Invalid('productID', 'cannot change the product of a group that has devices')
    return this.get(tenant, id)
  }

  /** Deletes all of `ids` or none: refused while a group still has devices. */
  async delete(tenant: string, ids: number[]) {
    const rows = await this.db.all(
      `SELECT g.id AS id, g.group_name AS name,
         (SELECT count(*) FROM group_devices gd WHERE gd.group_int_id = g.id) AS devices
       FROM groups g WHERE g.tenant_id = ? AND g.id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    if (rows.length !== ids.length) {
      const found = new Set(rows.map((r) => Number(r.id)))
      throw new NotFound('ids', `no group ${ids.filter((i) => !found.has(i)).join(', ')}`)
    }
    for (const r of rows)
      if (Number(r.devices) > 0)
        throw new Referenced(
          'ids',
          `group ${r.id} (${r.name}) still has ${r.devices} devices; remove them first`,
        )
    await this.db.run(`DELETE FROM groups WHERE tenant_id = ? AND id IN (${marks(ids.length)})`, [
      tenant,
      ...ids,
    ])
  }

  /** The record id of the tenant's product `productID`; NotFound names `productID`. */
  private async productIntID(tenant: string, productID: string): Promise<number> {
    const r = await this.db.one('SELECT id FROM products WHERE tenant_id = ? AND product_id = ?', [
      tenant,
      productID,
    ])
    if (!r) throw new NotFound('productID', `no product ${productID}`)
    return Number(r.id)
  }
}
