import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Devices'

/** A device's proxy subscriptions: stored here, applied by the broker. */
export function subscriptionRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const { Subscription, SubscriptionCreate, subscriptionFilters, subscriptionWire } =
    shapes.subscriptions
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/devices/:id/subscriptions',
      tag,
      summary: 'Subscriptions of a device',
      query: listQuery(subscriptionFilters),
      response: Page(Subscription),
    },
    async (c, { id, query }) => {
      const { items, count } = await meta.subscriptions.list(c.get('tenant'), id, query)
      return c.json(
        pageOf(
          items.map((s) => subscriptionWire.detail(s, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/devices/:id/subscriptions',
      tag,
      summary: 'Add a subscription to a device',
      description:
        "topic is an MQTT topic filter relative to the device's topic prefix; qos 0, 1 or 2 (default 1).",
      body: SubscriptionCreate,
      response: Subscription,
      status: 201,
    },
    async (c, { id, body }) => {
      const created = await services.subscriptions.create(actorOf(c), id, body)
      return c.json(subscriptionWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/devices/:id/subscriptions',
      tag,
      summary: 'Delete subscriptions of a device',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await services.subscriptions.remove(actorOf(c), id, query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
