import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

export function dataPointRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const s = shapes.dataPoints
  const detail = Form.of(s.DataPoint, s.dataPointWire.detail)
  return crud(new Router(), {
    tag: 'Data points',
    path: '/data_points',
    list: {
      summary: 'List data points',
      query: listQuery(s.dataPointFilters),
      form: Form.of(s.DataPointListItem, s.dataPointWire.list),
      read: (tenant, query) => meta.dataPoints.list(tenant, query),
    },
    detail: {
      summary: 'Data point detail',
      form: detail,
      read: (tenant, id) => meta.dataPoints.get(tenant, id),
    },
    create: {
      summary: 'Create a data point',
      body: s.DataPointCreate,
      form: detail,
      write: (actor, body) => services.dataPoints.create(actor, body),
    },
    update: {
      summary: 'Edit a data point',
      body: s.DataPointUpdate,
      form: detail,
      write: (actor, id, body) => services.dataPoints.update(actor, id, body),
    },
    remove: {
      summary: 'Delete data points and their stored values (refused while used)',
      write: (actor, ids) => services.dataPoints.remove(actor, ids),
    },
  })
}
