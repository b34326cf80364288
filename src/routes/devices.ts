import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  Device,
  DeviceCreate,
  DeviceListItem,
  DeviceUpdate,
  DeviceWrite,
  deviceFilters,
  deviceListExtra,
} from '../schemas/devices.ts'
import { deviceWire } from '../wire/devices.ts'
import { prepareDevice } from './device-input.ts'

const tag = 'Devices'

/**
 * The deviceIDs of the tenant's records among `ids` (read before a delete, for the 'device.deleted' events that
 * make the broker close their sessions). Ids that are not the tenant's are skipped: the delete itself refuses them.
 */
export async function deviceIDsOf(
  repo: { get(tenant: string, id: number): Promise<Record<string, unknown>> },
  tenant: string,
  ids: number[],
): Promise<Array<[number, string]>> {
  const rows = await Promise.all(ids.map((id) => repo.get(tenant, id).catch(() => undefined)))
  return rows.flatMap((r, i) => (r ? [[ids[i]!, String(r.deviceID)] as [number, string]] : []))
}

const DeviceListQuery = listQuery(deviceFilters, { extra: deviceListExtra })

export function deviceRoutes({ meta, bus }: Deps) {
  const r = new Router()
  const repo = meta.devices

  r.route(
    {
      method: 'get',
      path: '/devices',
      tag,
      summary:
        'List devices (?parentDevice= children of a device, ?gateway= devices under a gateway, ?groupID=)',
      query: DeviceListQuery,
      response: Page(DeviceListItem),
    },
    async (c, { query }) => {
      const groupID = query.raw.groupID as string | undefined
      const { items, count } = await repo.list(c.get('tenant'), query, { groupID })
      return c.json(
        pageOf(
          items.map((d) => deviceWire.list(d, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    { method: 'get', path: '/devices/:id', tag, summary: 'Device detail', response: Device },
    async (c, { id }) => c.json(deviceWire.detail(await repo.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
    {
      method: 'post',
      path: '/devices',
      tag,
      summary: 'Create a device',
      body: DeviceCreate,
      response: DeviceWrite,
      status: 201,
    },
    async (c, { body }) => {
      const tenant = c.get('tenant')
      const created = await repo.create(
        tenant,
        c.get('caller').userIntID,
        await prepareDevice(repo, tenant, body),
      )
      return c.json(deviceWire.write(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/devices/:id',
      tag,
      summary: 'Edit a device',
      body: DeviceUpdate,
      response: DeviceWrite,
    },
    async (c, { id, body }) => {
      const tenant = c.get('tenant')
      const fields = await prepareDevice(repo, tenant, body, await repo.current(tenant, id))
      const updated = await repo.update(tenant, id, fields)
      bus.emit('device.changed', {
        tenantID: tenant,
        id,
        deviceID: String(updated.deviceID),
        kind: 'device',
        blocked: Number(updated.blocked) === 1,
      })
      return c.json(deviceWire.write(updated, wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/devices',
      tag,
      summary:
        'Delete devices (refused while they have child devices; group, policy and cert links are removed)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      const tenant = c.get('tenant')
      const deviceIDs = await deviceIDsOf(repo, tenant, query.ids)
      await repo.delete(tenant, query.ids)
      for (const [id, deviceID] of deviceIDs)
        bus.emit('device.deleted', { tenantID: tenant, id, deviceID, kind: 'device' })
      return c.body(null, 204)
    },
  )

  return r
}
