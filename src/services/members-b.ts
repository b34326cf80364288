/** Variant B's `devices: [{id}]` of products and groups: the record ids of their devices, oldest first. */
import type { MetaStore, Row } from '../../store/types.ts'

const ALL = 1_000_000

/** Adds `devices` to each product row (and counts them): its devices and gateways. */
export async function withProductDevices(
  meta: MetaStore,
  tenant: string,
  rows: Row[],
): Promise<Row[]> {
  if (!rows.length) return rows
  const ids = rows.map((r) => Number(r.id))
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
      .filter((d) => Number(d.productIntID) === Number(r.id))
      .map((d) => ({ id: Number(d.id) }))
    return { ...r, deviceCount: devices.length, devices }
  })
}

/** Adds `devices` to each group row: its members. */
export async function withGroupDevices(
  meta: MetaStore,
  tenant: string,
  rows: Row[],
): Promise<Row[]> {
  return Promise.all(
    rows.map(async (r) => {
      const { items } = await meta.groups.members.list(tenant, Number(r.id), {
        page: 1,
        limit: ALL,
        sort: 'id',
        order: 'asc',
        filters: [],
      })
      return { ...r, devices: items.map((d) => ({ id: Number(d.id) })) }
    }),
  )
}
