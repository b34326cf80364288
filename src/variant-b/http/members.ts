/** Variant B's `devices: [{id}]` of products and groups: the record ids of their devices, oldest first. */
import type { GroupRecord, ProductRecord } from '../../../store/fields/products.ts'
import type { MetaStore } from '../../../store/types.ts'
import type { ProductRecordB } from '../wire/products.ts'
import type { GroupRecordB } from '../wire/groups.ts'

const ALL = 1_000_000

/** Adds `devices` to each product record (and counts them): its devices and gateways. */
export async function withProductDevices(
  meta: Pick<MetaStore, 'devices'>,
  tenant: string,
  rows: ProductRecord[],
): Promise<ProductRecordB[]> {
  if (!rows.length) return []
  const ids = rows.map((r) => r.id)
  const { items } = await meta.devices.list(
    tenant,
    {
      page: 1,
      limit: ALL,
      sort: 'id',
      order: 'asc',
      filters: [{ field: 'productIntID', op: 'in', value: ids }],
    },
    { kinds: ['device', 'gateway'] },
  )
  return rows.map((r) => {
    const devices = items
      .filter((d) => Number(d.productIntID) === r.id)
      .map((d) => ({ id: Number(d.id) }))
    return { ...r, deviceCount: devices.length, devices }
  })
}

/** Adds `devices` to each group record: its members. */
export async function withGroupDevices(
  meta: Pick<MetaStore, 'groups'>,
  tenant: string,
  rows: GroupRecord[],
): Promise<GroupRecordB[]> {
  return Promise.all(
    rows.map(async (r) => {
      const { items } = await meta.groups.members.list(tenant, r.id, {
        page: 1,
        limit: ALL,
        sort: 'id',
        order: 'asc',
        filters: [],
      })
      return { ...r, devices: items.map((d) => ({ id: d.id })) }
    }),
  )
}
