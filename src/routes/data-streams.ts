import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  DataStream,
  DataStreamCreate,
  DataStreamListItem,
  DataStreamUpdate,
  dataStreamFilters,
} from '../schemas/data-streams.ts'
import { assertValid, productUnchanged } from '../rules/product-model.ts'
import { dataStreamWire } from '../wire/data-streams.ts'

const tag = 'Data streams'

/**
 * Data streams. The spec lists their writes under the data point paths (a slip); they live at /data_streams.
 * streamType 3 and 4 are "only for gateway products", but products carry no gateway flag: all four are accepted.
 */
export function dataStreamRoutes({ meta, bus }: Deps) {
  const r = new Router()
  const streams = meta.dataStreams

  r.route(
    {
      method: 'get',
      path: '/data_streams',
      tag,
      summary: 'List data streams',
      query: listQuery(dataStreamFilters),
      response: Page(DataStreamListItem),
    },
    async (c, { query }) => {
      const { items, count } = await streams.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((s) => dataStreamWire.list(s, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    {
      method: 'get',
      path: '/data_streams/:id',
      tag,
      summary: 'Data stream detail',
      response: DataStream,
    },
    async (c, { id }) =>
      c.json(dataStreamWire.detail(await streams.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
    {
      method: 'post',
      path: '/data_streams',
      tag,
      summary: 'Create a data stream',
      body: DataStreamCreate,
      response: DataStream,
      status: 201,
    },
    async (c, { body }) => {
      const tenant = c.get('tenant')
      const product = await streams.product(tenant, body)
      const created = await streams.create(tenant, c.get('caller').userIntID, product, body)
      bus.emit('model.changed', { tenantID: tenant, productIntID: Number(created.productIntID) })
      return c.json(dataStreamWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/data_streams/:id',
      tag,
      summary: 'Edit a data stream',
      body: DataStreamUpdate,
      response: DataStream,
    },
    async (c, { id, body }) => {
      const tenant = c.get('tenant')
      const current = await streams.get(tenant, id)
      assertValid({
        ...productUnchanged('productID', body.productID, current.productID),
        ...productUnchanged('productIntID', body.productIntID, current.productIntID),
      })
      const updated = await streams.update(tenant, id, body)
      bus.emit('model.changed', { tenantID: tenant, productIntID: Number(current.productIntID) })
      return c.json(dataStreamWire.detail(updated, wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/data_streams',
      tag,
      summary: 'Delete data streams (refused while used)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      const tenant = c.get('tenant')
      // the products to tell ingest about; ids that are not the tenant's are left to the delete's own 404
      const products = await Promise.all(
        query.ids.map((id) =>
          streams.get(tenant, id).then(
            (s) => Number(s.productIntID),
            () => undefined,
          ),
        ),
      )
      await streams.delete(tenant, query.ids)
      for (const productIntID of new Set(products))
        if (productIntID) bus.emit('model.changed', { tenantID: tenant, productIntID })
      return c.body(null, 204)
    },
  )

  return r
}
