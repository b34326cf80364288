import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

/**
 * Data streams; their writes live at /data_streams.
 * streamType 3 and 4 are "only for gateway products", but products carry no gateway flag: all four are accepted.
 */
export function dataStreamRoutes({ meta, services }: Deps, { dataStreams: s }: WireShapes) {
  const detail = Form.of(s.DataStream, s.dataStreamWire.detail)
  return crud(new Router(), {
    tag: 'Data streams',
    path: '/data_streams',
    store: meta.dataStreams,
    service: services.dataStreams,
    list: {
      summary: 'List data streams',
      query: listQuery(s.dataStreamFilters),
      form: Form.of(s.DataStreamListItem, s.dataStreamWire.list),
    },
    detail: { summary: 'Data stream detail', form: detail },
    create: { summary: 'Create a data stream', body: s.DataStreamCreate, form: detail },
    update: { summary: 'Edit a data stream', body: s.DataStreamUpdate, form: detail },
    remove: { summary: 'Delete data streams (refused while used)' },
  })
}
