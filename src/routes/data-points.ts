import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Data points'

export function dataPointRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const {
    DataPoint,
    DataPointCreate,
    DataPointListItem,
    DataPointUpdate,
    dataPointFilters,
    dataPointWire,
  } = shapes.dataPoints
  const r = new Router()
  const points = meta.dataPoints

  r.typed(
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

  r.typed(
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

  r.typed(
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
      const created = await services.dataPoints.create(actorOf(c), body)
      return c.json(dataPointWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/data_points/:id',
      tag,
      summary: 'Edit a data point',
      body: DataPointUpdate,
      response: DataPoint,
    },
    async (c, { id, body }) => {
      const updated = await services.dataPoints.update(actorOf(c), id, body)
      return c.json(dataPointWire.detail(updated, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/data_points',
      tag,
      summary: 'Delete data points and their stored values (refused while used)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.dataPoints.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
