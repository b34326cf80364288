import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

export function dataPointRoutes({ meta, services }: Deps, { dataPoints: s }: WireShapes) {
  const detail = Form.of(s.DataPoint, s.dataPointWire.detail)
  return crud(new Router(), {
    tag: 'Data points',
    path: '/data_points',
    store: meta.dataPoints,
    service: services.dataPoints,
    list: {
      summary: 'List data points',
      query: listQuery(s.dataPointFilters),
      form: Form.of(s.DataPointListItem, s.dataPointWire.list),
    },
    detail: { summary: 'Data point detail', form: detail },
    create: { summary: 'Create a data point', body: s.DataPointCreate, form: detail },
    update: { summary: 'Edit a data point', body: s.DataPointUpdate, form: detail },
    remove: { summary: 'Delete data points and their stored values (refused while used)' },
  })
}
