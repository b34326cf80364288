import type { Deps } from '../deps.ts'
import type { MetaStore } from '../../store/libsql/meta.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  Metric,
  MetricCreate,
  MetricListItem,
  MetricRecord,
  MetricUpdate,
  metricFilters,
} from '../schemas/metrics.ts'
import { defaultMetricType, metricErrors, type MetricFields } from '../rules/metrics.ts'
import { assertValid } from '../rules/product-model.ts'
import { metricWire } from '../wire/metrics.ts'

const tag = 'Metrics'

/**
 * Runs the metric rules over `m` (its formula against the data points of its point's product) and returns the
 * point and the ids the formula reads. With `productIntID` (an edit), the point must stay in that product.
 */
async function checked(
  meta: MetaStore,
  tenant: string,
  m: MetricFields & { dataPointIntID: number },
  productIntID?: number,
) {
  const { point, points } = await meta.metrics.pointsFor(tenant, m.dataPointIntID)
  const { errors, reads } = metricErrors(m, point, points)
  if (productIntID !== undefined && point.productIntID !== productIntID)
    errors.dataPointIntID = 'must be a data point of the same product'
  assertValid(errors)
  return { point, reads }
}

export function metricRoutes({ meta }: Deps) {
  const r = new Router()
  const metrics = meta.metrics

  r.route(
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

  r.route(
    { method: 'get', path: '/metrics/:id', tag, summary: 'Metric detail', response: Metric },
    async (c, { id }) =>
      c.json(metricWire.detail(await metrics.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
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
      const tenant = c.get('tenant')
      const defaults = {
        metricType: defaultMetricType(body),
        aggregateData: body.aggregateData ?? 2,
        isShow: body.isShow ?? 1,
      }
      const record = { ...body, ...defaults }
      const { point, reads } = await checked(meta, tenant, record)
      const created = await metrics.create(tenant, c.get('caller').userIntID, point, record, reads)
      return c.json(metricWire.record(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/metrics/:id',
      tag,
      summary: 'Edit a metric',
      body: MetricUpdate,
      response: MetricRecord,
    },
    async (c, { id, body }) => {
      const tenant = c.get('tenant')
      const current = await metrics.get(tenant, id)
      const merged = { ...current, ...body } as MetricFields & { dataPointIntID: number }
      const { reads } = await checked(meta, tenant, merged, Number(current.productIntID))
      return c.json(metricWire.record(await metrics.update(tenant, id, body, reads), wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/metrics',
      tag,
      summary: 'Delete metrics',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await metrics.delete(c.get('tenant'), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
