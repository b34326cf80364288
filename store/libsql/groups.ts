import type { Db } from './db.ts'
import type { GroupInput, GroupRepository } from '../types.ts'
import { GROUP_TABLE } from '../fields/products.ts'
import { Invalid, NotFound } from '../errors.ts'
import { GroupMembersRepo } from './group-devices.ts'
import { TableRepo } from './table-repository.ts'

const FROM =
  'FROM groups g JOIN products p ON p.id = g.product_int_id LEFT JOIN users u ON u.id = g.user_int_id'

/** A group may move to another product only while it has no members. */
const EMPTY_ONLY =
  '? OR NOT EXISTS (SELECT 1 FROM group_devices gd WHERE gd.group_int_id = groups.id)'

/**
 * Groups of a tenant: each bundles devices of one product (members: `members`). A delete is refused while a
 * group still has devices.
 */
export class GroupsRepo extends TableRepo<typeof GROUP_TABLE> implements GroupRepository {
  readonly members: GroupMembersRepo

  constructor(db: Db) {
    super(db, {
      list: GROUP_TABLE,
      from: FROM,
      unique: { group_name: 'groupName' },
      generatedId: { column: 'group_id', length: 6 },
      remove: {
        nameColumn: 'group_name',
        uses: { devices: 'SELECT count(*) FROM group_devices gd WHERE gd.group_int_id = x.id' },
        missing: (missing) => `no group ${missing.join(', ')}`,
        refused: (r) =>
          `group ${r.id} (${r.name}) still has ${r.uses[0]![1]} devices; remove them first`,
      },
    })
    this.members = new GroupMembersRepo(db)
  }

  /** Creates a group with a generated groupID; the product is named by its string productID. */
  async create(
    tenant: string,
    userIntID: number | null,
    g: Required<Pick<GroupInput, 'productID' | 'groupName'>> & GroupInput,
  ) {
    const productIntID = await this.productIntID(tenant, g.productID)
    return this.insert(tenant, { ...g, productIntID }, { user_int_id: userIntID })
  }

  /** Edits a group; absent fields keep their values. The product may change only while the group is empty. */
  override async update(tenant: string, id: number, g: GroupInput) {
    const current = await this.get(tenant, id)
    const moving = g.productID !== undefined && g.productID !== current.productID
    const productIntID = moving ? await this.productIntID(tenant, g.productID!) : undefined
    const patch = { groupName: g.groupName, description: g.description, productIntID }
    return this.write(tenant, id, patch, {
      where: { sql: EMPTY_ONLY, args: [moving ? 0 : 1] },
      refused: () =>
        moving
          ? new Invalid('productID', 'cannot change the product of a group that has devices')
          : new NotFound(),
    })
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
