import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Metrics'

export function metricRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const {
    Metric,
    MetricCreate,
    MetricListItem,
    MetricRecord,
    MetricUpdate,
    metricFilters,
    metricWire,
  } = shapes.metrics
  const r = new Router()
  const metrics = meta.metrics

  r.typed(
    {
      method: 'get',
      path: '/metrics',
      tag,
      summary: 'List metrics',
      query: listQuery(metricFilters),
      response: Page(MetricListItem),
    },
    async (c, { query }) => {
      const { items, count } = await metrics.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((m) => metricWire.list(m, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    { method: 'get', path: '/metrics/:id', tag, summary: 'Metric detail', response: Metric },
    async (c, { id }) =>
      c.json(metricWire.detail(await metrics.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'post',
      path: '/metrics',
      tag,
      summary: 'Create a metric',
      body: MetricCreate,
      response: MetricRecord,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.metrics.create(actorOf(c), body)
      return c.json(metricWire.record(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/metrics/:id',
      tag,
      summary: 'Edit a metric',
      body: MetricUpdate,
      response: MetricRecord,
    },
    async (c, { id, body }) => {
      const updated = await services.metrics.update(actorOf(c), id, body)
      return c.json(metricWire.record(updated, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/metrics',
      tag,
      summary: 'Delete metrics',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.metrics.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
