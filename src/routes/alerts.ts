import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { crud, Form } from '../http/crud.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Alerts'

/** Current and history alerts; deleting a current alert handles it (moves it to the history). */
export function alertRoutes({ meta, services }: Deps, { alerts: s }: WireShapes) {
  const current = Form.of(s.CurrentAlert, s.alertWire.current)
  const r = crud(new Router(), {
    tag,
    path: '/current_alerts',
    list: {
      summary: 'Current alerts',
      query: s.CurrentAlertListQuery,
      form: current,
      read: (tenant, query) => meta.alerts.current(tenant, query),
    },
    remove: {
      summary: 'Handle (clear) current alerts: they move to the history',
      write: (actor, ids) => services.alerts.clear(actor, ids),
    },
  })

  r.typed(
    {
      method: 'post',
      path: '/current_alerts/:id/ack',
      tag,
      summary: 'Acknowledge a current alert: records ackAt and ackUser; it stays open',
      response: s.CurrentAlert,
    },
    async (c, { id }) =>
      c.json(s.alertWire.current(await services.alerts.ack(actorOf(c), id), wireCtx(c))),
  )

  return crud(r, {
    tag,
    path: '/history_alerts',
    list: {
      summary: 'History alerts',
      query: s.HistoryAlertListQuery,
      form: Form.of(s.HistoryAlert, s.alertWire.history),
      read: (tenant, query) => meta.alerts.history(tenant, query),
    },
    remove: {
      summary: 'Delete history alerts',
      write: (actor, ids) => services.alerts.removeHistory(actor, ids),
    },
  })
}
