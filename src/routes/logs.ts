import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import type { AppEnv } from '../http/env.ts'
import { Router } from '../http/router.ts'
import { Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import type { Page as StorePage } from '../../store/types.ts'
import type { Row, WireCtx } from '../wire/shape.ts'

const tag = 'Logs'

/** A store page → the page envelope, each row through `wire`. */
function pageJson(
  c: Context<AppEnv>,
  { items, count }: StorePage,
  wire: (row: Row, ctx: WireCtx) => Row,
  query: { page: number; limit: number },
) {
  const ctx = wireCtx(c)
  return c.json(
    pageOf(
      items.map((row) => wire(row, ctx)),
      count,
      query,
    ),
  )
}

/** Connection logs, uplink messages and downlink messages: account-wide, per device, per gateway, per group. */
export function logRoutes({ meta }: Deps, shapes: WireShapes) {
  const {
    ConnectLog,
    ConnectLogListQuery,
    ControlLog,
    ControlLogListQuery,
    Event,
    EventListQuery,
    GatewayControlLog,
    GatewayControlLogListQuery,
    GatewayEvent,
    GatewayEventListQuery,
    GroupControlLog,
    GroupControlLogListQuery,
    connectLogWire,
    controlLogWire,
    eventWire,
  } = shapes.logs
  const r = new Router()
  const logs = meta.logs

  r.route(
    {
      method: 'get',
      path: '/device_connect_logs',
      tag,
      summary: 'Connection logs',
      query: ConnectLogListQuery,
      response: Page(ConnectLog),
    },
    async (c, { query }) =>
      pageJson(c, await logs.connectLogs(c.get('tenant'), query), connectLogWire.list, query),
  )

  r.route(
    {
      method: 'get',
      path: '/device_events',
      tag,
      summary: 'Uplink messages',
      query: EventListQuery,
      response: Page(Event),
    },
    async (c, { query }) =>
      pageJson(c, await logs.events(c.get('tenant'), query), eventWire.list, query),
  )

  r.route(
    {
      method: 'get',
      path: '/device_control_logs',
      tag,
      summary: 'Downlink messages',
      query: ControlLogListQuery,
      response: Page(ControlLog),
    },
    async (c, { query }) =>
      pageJson(c, await logs.controlLogs(c.get('tenant'), query), controlLogWire.list, query),
  )

  r.route(
    {
      method: 'get',
      path: '/devices/:id/events',
      tag,
      summary: 'Uplink messages of a device',
      query: EventListQuery,
      response: Page(Event),
    },
    async (c, { id, query }) =>
      pageJson(c, await logs.deviceEvents(c.get('tenant'), id, query), eventWire.list, query),
  )

  r.route(
    {
      method: 'get',
      path: '/devices/:id/connect_logs',
      tag,
      summary: 'Connection logs of a device',
      query: ConnectLogListQuery,
      response: Page(ConnectLog),
    },
    async (c, { id, query }) =>
      pageJson(
        c,
        await logs.deviceConnectLogs(c.get('tenant'), id, query),
        connectLogWire.list,
        query,
      ),
  )

  r.route(
    {
      method: 'get',
      path: '/devices/:id/control_logs',
      tag,
      summary: 'Downlink messages of a device',
      query: ControlLogListQuery,
      response: Page(ControlLog),
    },
    async (c, { id, query }) =>
      pageJson(
        c,
        await logs.deviceControlLogs(c.get('tenant'), id, query),
        controlLogWire.list,
        query,
      ),
  )

  r.route(
    {
      method: 'get',
      path: '/gateways/:id/events',
      tag,
      summary: 'Uplink messages of a gateway',
      query: GatewayEventListQuery,
      response: Page(GatewayEvent),
    },
    async (c, { id, query }) =>
      pageJson(
        c,
        await logs.deviceEvents(c.get('tenant'), id, query, 'gateway'),
        eventWire.gateway,
        query,
      ),
  )

  r.route(
    {
      method: 'get',
      path: '/gateways/:id/control_logs',
      tag,
      summary: 'Control logs of a gateway (structured payload)',
      query: GatewayControlLogListQuery,
      response: Page(GatewayControlLog),
    },
    async (c, { id, query }) =>
      pageJson(
        c,
        await logs.deviceControlLogs(c.get('tenant'), id, query, 'gateway'),
        controlLogWire.gateway,
        query,
      ),
  )

  r.route(
    {
      method: 'get',
      path: '/groups/:id/control_logs',
      tag,
      summary: 'Control logs of a group',
      query: GroupControlLogListQuery,
      response: Page(GroupControlLog),
    },
    async (c, { id, query }) =>
      pageJson(
        c,
        await logs.groupControlLogs(c.get('tenant'), id, query),
        controlLogWire.group,
        query,
      ),
  )

  return r
}
