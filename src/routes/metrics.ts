import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

export function metricRoutes({ meta, services }: Deps, { metrics: s }: WireShapes) {
  const record = Form.of(s.MetricRecord, s.metricWire.record)
  return crud(new Router(), {
    tag: 'Metrics',
    path: '/metrics',
    store: meta.metrics,
    service: services.metrics,
    list: {
      summary: 'List metrics',
      query: listQuery(s.metricFilters),
      form: Form.of(s.MetricListItem, s.metricWire.list),
    },
    detail: { summary: 'Metric detail', form: Form.of(s.Metric, s.metricWire.detail) },
    create: { summary: 'Create a metric', body: s.MetricCreate, form: record },
    update: { summary: 'Edit a metric', body: s.MetricUpdate, form: record },
    remove: { summary: 'Delete metrics' },
  })
}
