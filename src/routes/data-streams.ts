import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Data streams'

/**
 * Data streams; their writes live at /data_streams.
 * streamType 3 and 4 are "only for gateway products", but products carry no gateway flag: all four are accepted.
 */
export function dataStreamRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const {
    DataStream,
    DataStreamCreate,
    DataStreamListItem,
    DataStreamUpdate,
    dataStreamFilters,
    dataStreamWire,
  } = shapes.dataStreams
  const r = new Router()
  const streams = meta.dataStreams

  r.typed(
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

  r.typed(
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

  r.typed(
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
      const created = await services.dataStreams.create(actorOf(c), body)
      return c.json(dataStreamWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/data_streams/:id',
      tag,
      summary: 'Edit a data stream',
      body: DataStreamUpdate,
      response: DataStream,
    },
    async (c, { id, body }) => {
      const updated = await services.dataStreams.update(actorOf(c), id, body)
      return c.json(dataStreamWire.detail(updated, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/data_streams',
      tag,
      summary: 'Delete data streams (refused while used)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.dataStreams.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
