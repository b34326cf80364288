import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Alerts'

/** Current and history alerts; deleting a current alert handles it (moves it to the history). */
export function alertRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const { CurrentAlert, CurrentAlertListQuery, HistoryAlert, HistoryAlertListQuery, alertWire } =
    shapes.alerts
  const r = new Router()

  r.route(
    {
      method: 'get',
      path: '/current_alerts',
      tag,
      summary: 'Current alerts',
      query: CurrentAlertListQuery,
      response: Page(CurrentAlert),
    },
    async (c, { query }) => {
      const { items, count } = await meta.alerts.current(c.get('tenant'), query)
      const ctx = wireCtx(c)
      return c.json(
        pageOf(
          items.map((a) => alertWire.current(a, ctx)),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/current_alerts',
      tag,
      summary: 'Handle (clear) current alerts: they move to the history',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.alerts.clear(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  r.route(
    {
      method: 'post',
      path: '/current_alerts/:id/ack',
      tag,
      summary: 'Acknowledge a current alert: records ackAt and ackUser; it stays open',
      response: CurrentAlert,
    },
    async (c, { id }) => {
      const a = { ...actorOf(c), username: c.get('caller').username }
      return c.json(alertWire.current(await services.alerts.ack(a, id), wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'get',
      path: '/history_alerts',
      tag,
      summary: 'History alerts',
      query: HistoryAlertListQuery,
      response: Page(HistoryAlert),
    },
    async (c, { query }) => {
      const { items, count } = await meta.alerts.history(c.get('tenant'), query)
      const ctx = wireCtx(c)
      return c.json(
        pageOf(
          items.map((a) => alertWire.history(a, ctx)),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/history_alerts',
      tag,
      summary: 'Delete history alerts',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.alerts.removeHistory(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
