/** Variant B's `devices: [{id}]` of products and groups: the record ids of their devices, oldest first. */
import type { MetaStore } from '../../store/types.ts'

const ALL = 1_000_000

/** What Variant B adds to a product or group record. */
export interface DeviceRefs {
  devices: Array<{ id: number }>
}

/** Adds `devices` to each product record (and counts them): its devices and gateways. */
export async function withProductDevices<R extends { id: number }>(
  meta: MetaStore,
  tenant: string,
  rows: R[],
): Promise<Array<R & DeviceRefs & { deviceCount: number }>> {
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
export async function withGroupDevices<R extends { id: number }>(
  meta: MetaStore,
  tenant: string,
  rows: R[],
): Promise<Array<R & DeviceRefs>> {
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
