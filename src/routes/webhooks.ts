import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { pullStream } from '../http/stream.ts'

const tag = 'Webhooks'
const SIGNING =
  'Each delivery is `POST url` with body `{id, type, time, tenantID, data}` (time in epoch ms) and headers ' +
  '`X-DeviceCloud-Event`, `X-DeviceCloud-Delivery` (the event id), `X-DeviceCloud-Timestamp` (epoch s) and ' +
  '`X-DeviceCloud-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" with the secret>`. A 2xx ' +
  'within 10 s succeeds; otherwise it is retried (10 s doubling, at most 1 h apart) for 24 h, then failed.'

export function webhookRoutes({ services }: Deps, shapes: WireShapes) {
  const s = shapes.webhooks
  const r = new Router()
  const path = '/webhooks'

  r.typed(
    {
      method: 'get',
      path,
      tag,
      summary: 'List webhooks',
      query: listQuery(s.webhookFilters),
      response: Page(s.Webhook),
    },
    async (c, { query }) => {
      const { items, count } = await services.webhooks.list(c.get('tenant'), query)
      const ctx = wireCtx(c)
      return c.json(
        pageOf(
          items.map((w) => s.webhookWire.detail(w, ctx)),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    { method: 'get', path: `${path}/:id`, tag, summary: 'A webhook', response: s.Webhook },
    async (c, { id }) =>
      c.json(s.webhookWire.detail(await services.webhooks.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'post',
      path,
      tag,
      summary: 'Create a webhook; the answer shows its secret once',
      description: `A URL whose host is (or resolves to) a link-local address is refused. ${SIGNING}`,
      body: s.WebhookCreate,
      response: s.WebhookCreated,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.webhooks.create(actorOf(c), body)
      return c.json(s.webhookWire.created(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: `${path}/:id`,
      tag,
      summary: 'Edit a webhook (url, events, enable; the secret stays)',
      body: s.WebhookUpdate,
      response: s.Webhook,
    },
    async (c, { id, body }) =>
      c.json(
        s.webhookWire.detail(await services.webhooks.update(actorOf(c), id, body), wireCtx(c)),
      ),
  )

  r.typed(
    {
      method: 'delete',
      path,
      tag,
      summary: 'Delete webhooks and their deliveries (all or none)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.webhooks.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  r.typed(
    {
      method: 'get',
      path: `${path}/:id/deliveries`,
      tag,
      summary: "A webhook's deliveries, newest first",
      query: listQuery(s.deliveryFilters),
      response: Page(s.WebhookDelivery),
    },
    async (c, { id, query }) => {
      const { items, count } = await services.webhooks.deliveries(c.get('tenant'), id, query)
      const ctx = wireCtx(c)
      return c.json(
        pageOf(
          items.map((d) => s.deliveryWire.detail(d, ctx)),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'post',
      path: `${path}/:id/deliveries/:deliveryID/retry`,
      tag,
      summary: 'Send one delivery again now',
      response: s.WebhookDelivery,
    },
    async (c, { id, params }) => {
      if (!/^\d{1,15}$/.test(params.deliveryID ?? ''))
        throw new ApiError('DATA_NOT_FOUND', { deliveryID: 'not found' })
      const d = await services.webhooks.retry(actorOf(c), id, Number(params.deliveryID))
      return c.json(s.deliveryWire.detail(d, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/events/stream',
      tag,
      summary: 'The live event stream (Server-Sent Events)',
      produces: { 'text/event-stream': 'Server-Sent Events until the client disconnects' },
      description:
        "The caller's tenant's events (`id:` the event id, `event:` the type, `data:` as a webhook's body) and " +
        '`telemetry` (`{deviceID, time, values}`, no id), filtered by `types` and `deviceID`; `: ping` every ' +
        '15 s. `Last-Event-ID` (or `lastEventId`) replays the events after that id first. A client that falls ' +
        'too far behind gets `overflow` (`{missed, lastEventID}`) and the stream ends: resume with that id.',
      query: s.StreamQuery,
    },
    async (c, { query }) => {
      const header = c.req.header('last-event-id')
      if (header !== undefined && !/^\d{1,15}$/.test(header))
        throw new ApiError('PARAMETER_INVALID', { 'Last-Event-ID': 'must be an event id' })
      const resume = header ?? query.lastEventId
      const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing
      const sub = await services.eventStream.subscribe({
        tenant: c.get('tenant'),
        types: query.types,
        deviceID: query.deviceID,
        lastEventID: resume === undefined ? undefined : Number(resume),
        drop: () => outgoing?.destroy(),
      })
      const res = new Response(pullStream({ next: sub.next, cancel: sub.close }), {
        headers: {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          // the connection ends with the stream: a stopping service does not wait for an idle keep-alive
          connection: 'close',
        },
      })
      return res
    },
  )

  return r
}
