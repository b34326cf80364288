import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { pullStream } from '../http/stream.ts'

const tag = 'Webhooks'
const SIGNING =
  'Each delivery is `POST url` with body `{id, type, time, tenantID, data}` (time in epoch ms) and headers ' +
  '`X-DeviceCloud-Event`, `X-DeviceCloud-Delivery` (the event id), `X-DeviceCloud-Timestamp` (epoch s) and ' +
  '`X-DeviceCloud-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" with the secret>`. A 2xx ' +
  'within 10 s succeeds; otherwise it is retried (10 s doubling, at most 1 h apart) for 24 h, then failed.'

export function webhookRoutes({ services }: Deps, { webhooks: s }: WireShapes) {
  const path = '/webhooks'
  const detail = Form.of(s.Webhook, s.webhookWire.detail)
  const r = crud(new Router(), {
    tag,
    path,
    store: services.webhooks,
    service: services.webhooks,
    list: { summary: 'List webhooks', query: listQuery(s.webhookFilters), form: detail },
    detail: { summary: 'A webhook', form: detail },
    create: {
      summary: 'Create a webhook; the answer shows its secret once',
      description: `A URL whose host is (or resolves to) a link-local address is refused. ${SIGNING}`,
      body: s.WebhookCreate,
      form: Form.of(s.WebhookCreated, s.webhookWire.created),
    },
    update: {
      summary: 'Edit a webhook (url, events, enable; the secret stays)',
      body: s.WebhookUpdate,
      form: detail,
    },
    remove: { summary: 'Delete webhooks and their deliveries (all or none)' },
  })
  crud(r, {
    tag,
    path: `${path}/:id/deliveries`,
    list: {
      summary: "A webhook's deliveries, newest first",
      query: listQuery(s.deliveryFilters),
      form: Form.of(s.WebhookDelivery, s.deliveryWire.detail),
      read: (tenant, query, id) => services.webhooks.deliveries(tenant, id, query),
    },
  })

  deliveryRoute(r, services, s, path)
  retryRoute(r, services, s, path)
  eventStreamRoute(r, services, s)
  return r
}

type Services = Deps['services']
type Shapes = WireShapes['webhooks']

/** A `:deliveryID` path parameter; 404 when it cannot be a record id. */
function deliveryIdOf(params: Record<string, string>): number {
  if (!/^\d{1,15}$/.test(params.deliveryID ?? ''))
    throw new ApiError('DATA_NOT_FOUND', { deliveryID: 'not found' })
  return Number(params.deliveryID)
}

/** `GET /webhooks/{id}/deliveries/{deliveryID}`: one delivery with the body it sends. */
function deliveryRoute(r: Router, services: Services, s: Shapes, path: string) {
  r.typed(
    {
      method: 'get',
      path: `${path}/:id/deliveries/:deliveryID`,
      tag,
      summary: 'One delivery with the request body it sends (as signed)',
      response: s.WebhookDeliveryDetail,
    },
    async (c, { id, params }) => {
      const d = await services.webhooks.delivery(c.get('tenant'), id, deliveryIdOf(params))
      return c.json({ ...s.deliveryWire.detail(d, wireCtx(c)), body: d.body })
    },
  )
}

/** `POST /webhooks/{id}/deliveries/{deliveryID}/retry`. */
function retryRoute(r: Router, services: Services, s: Shapes, path: string) {
  r.typed(
    {
      method: 'post',
      path: `${path}/:id/deliveries/:deliveryID/retry`,
      tag,
      summary: 'Send one delivery again now',
      response: s.WebhookDelivery,
    },
    async (c, { id, params }) => {
      const d = await services.webhooks.retry(actorOf(c), id, deliveryIdOf(params))
      return c.json(s.deliveryWire.detail(d, wireCtx(c)))
    },
  )
}

/** `GET /events/stream`: the tenant's events as Server-Sent Events (src/services/event-stream.ts). */
function eventStreamRoute(r: Router, services: Services, s: Shapes) {
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
}
