import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  DataPoint,
  DataPointCreate,
  DataPointListItem,
  DataPointUpdate,
  dataPointFilters,
} from '../schemas/data-points.ts'
import { dataPointErrors, type PointFields } from '../rules/data-points.ts'
import { assertValid, productUnchanged } from '../rules/product-model.ts'
import { dataPointWire } from '../wire/data-points.ts'

const tag = 'Data points'

export function dataPointRoutes({ meta, bus }: Deps) {
  const r = new Router()
  const points = meta.dataPoints

  r.route(
    {
      method: 'get',
      path: '/data_points',
      tag,
      summary: 'List data points',
      query: listQuery(dataPointFilters),
      response: Page(DataPointListItem),
    },
    async (c, { query }) => {
      const { items, count } = await points.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((p) => dataPointWire.list(p, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    {
      method: 'get',
      path: '/data_points/:id',
      tag,
      summary: 'Data point detail',
      response: DataPoint,
    },
    async (c, { id }) =>
      c.json(dataPointWire.detail(await points.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
    {
      method: 'post',
      path: '/data_points',
      tag,
      summary: 'Create a data point',
      body: DataPointCreate,
      response: DataPoint,
      status: 201,
    },
    async (c, { body }) => {
      const tenant = c.get('tenant')
      const product = await points.product(tenant, body.productIntID)
      assertValid(dataPointErrors(body, product.cloudProtocol))
      const created = await points.create(tenant, c.get('caller').userIntID, product.id, body)
      bus.emit('model.changed', { tenantID: tenant, productIntID: product.id })
      return c.json(dataPointWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/data_points/:id',
      tag,
      summary: 'Edit a data point',
      body: DataPointUpdate,
      response: DataPoint,
    },
    async (c, { id, body }) => {
      const tenant = c.get('tenant')
      const current = await points.get(tenant, id)
      const merged = { ...current, ...body } as unknown as PointFields
      assertValid({
        ...productUnchanged('productIntID', body.productIntID, current.productIntID),
        ...dataPointErrors(merged, Number(current.cloudProtocol)),
      })
      const updated = await points.update(tenant, id, body)
      bus.emit('model.changed', { tenantID: tenant, productIntID: Number(current.productIntID) })
      return c.json(dataPointWire.detail(updated, wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/data_points',
      tag,
      summary: 'Delete data points (refused while used)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      const tenant = c.get('tenant')
      // the products to tell ingest about; ids that are not the tenant's are left to the delete's own 404
      const products = await Promise.all(
        query.ids.map((id) =>
          points.get(tenant, id).then(
            (p) => Number(p.productIntID),
            () => undefined,
          ),
        ),
      )
      await points.delete(tenant, query.ids)
      for (const productIntID of new Set(products))
        if (productIntID) bus.emit('model.changed', { tenantID: tenant, productIntID })
      return c.body(null, 204)
    },
  )

  return r
}
