import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

/** A device's proxy subscriptions: stored here, applied by the broker. */
export function subscriptionRoutes({ meta, services }: Deps, { subscriptions: s }: WireShapes) {
  const detail = Form.of(s.Subscription, s.subscriptionWire.detail)
  return crud(new Router(), {
    tag: 'Devices',
    path: '/devices/:id/subscriptions',
    list: {
      summary: 'Subscriptions of a device',
      query: listQuery(s.subscriptionFilters),
      form: detail,
      read: (tenant, query, id) => meta.subscriptions.list(tenant, id, query),
    },
    create: {
      summary: 'Add a subscription to a device',
      description:
        "topic is an MQTT topic filter relative to the device's topic prefix; qos 0, 1 or 2 (default 1).",
      body: s.SubscriptionCreate,
      form: detail,
      write: (actor, body, id) => services.subscriptions.create(actor, id, body),
    },
    remove: {
      summary: 'Delete subscriptions of a device',
      write: (actor, ids, id) => services.subscriptions.remove(actor, id, ids),
    },
  })
}
