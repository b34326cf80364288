import type { Db } from './db.ts'
import type { GroupInput, GroupRecord, GroupRepository, ListArgs, Page } from '../types.ts'
import { GROUP_TABLE } from '../fields/products.ts'
import { writeColumns } from '../fields/table.ts'
import { Conflict, Invalid, NotFound } from '../errors.ts'
import { listPage, tableList } from './list.ts'
import { deleteChecked, insertOf, readRecord, setClause } from './records.ts'
import { isUniqueViolation, uniqueColumns } from './sql-errors.ts'
import { GroupMembersRepo } from './group-devices.ts'
import { randomId } from '../../src/kernel/secrets.ts'

const FROM =
  'FROM groups g JOIN products p ON p.id = g.product_int_id LEFT JOIN users u ON u.id = g.user_int_id'

const list = tableList(GROUP_TABLE, {
  from: FROM,
  where: 'g.tenant_id = ?',
  timeField: 'g.create_at',
  idField: 'g.id',
})

const COLUMNS = writeColumns(GROUP_TABLE)

/** Groups of a tenant: each bundles devices of one product (members: `members`). */
export class GroupsRepo implements GroupRepository {
  readonly members: GroupMembersRepo

  constructor(private readonly db: Db) {
    this.members = new GroupMembersRepo(db)
  }

  /** A page of the tenant's groups with their member counts. */
  list(tenant: string, q: ListArgs): Promise<Page<GroupRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One group of the tenant; NotFound when missing or foreign. */
  async get(tenant: string, id: number): Promise<GroupRecord> {
    const r = await readRecord(this.db, GROUP_TABLE, `${FROM} WHERE g.tenant_id = ? AND g.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound()
    return r
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
        const insert = insertOf(
          'groups',
          COLUMNS,
          { ...g, productIntID },
          {
            tenant_id: tenant,
            group_id: randomId(6),
            user_int_id: userIntID,
            create_at: Date.now(),
          },
        )
        const r = await this.db.run(insert.sql, insert.args)
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
    const set = setClause(COLUMNS, {
      groupName: g.groupName,
      description: g.description,
      productIntID: productIntID ?? undefined,
    })
    let changes: number
    try {
      changes = (
        await this.db.run(
          `UPDATE groups SET ${set.sql ? `${set.sql}, ` : ''}update_at = ?
           WHERE tenant_id = ? AND id = ? AND (? OR ${emptyOnly})`,
          [...set.args, Date.now(), tenant, id, moving ? 0 : 1],
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
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      {
        table: 'groups',
        nameColumn: 'group_name',
        uses: { devices: 'SELECT count(*) FROM group_devices gd WHERE gd.group_int_id = x.id' },
        missing: (missing) => `no group ${missing.join(', ')}`,
        refused: (r) =>
          `group ${r.id} (${r.name}) still has ${r.uses[0]![1]} devices; remove them first`,
      },
      ids,
    )
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
