import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { ListArgs, Page as Found } from '../../store/types.ts'
import { Router } from '../http/router.ts'
import { crud, Form } from '../http/crud.ts'
import type { Row, WireCtx } from '../wire/shape.ts'
import type { ShapesA } from '../wire/shapes.ts'

const tag = 'Logs'

type LogsA = ShapesA['logs']

/**
 * The logs of one variant: Variant A's forms, but for the connection log, which a variant may name its own
 * way (its query's output is still Variant A's, the stored fields). Log rows are not yet typed records, so
 * their forms are plain zod types and their answers are not checked at compile time.
 */
export type LogVariant = Omit<LogsA, 'ConnectLog' | 'ConnectLogListQuery' | 'connectLogWire'> & {
  ConnectLog: z.ZodObject
  ConnectLogListQuery: z.ZodType<z.output<LogsA['ConnectLogListQuery']>>
  connectLogWire: { list: (record: object, ctx: WireCtx) => Row }
}

/** One log list: its path and form, and the page it reads (`id` is the path's, 0 without one). */
interface LogList {
  path: string
  summary: string
  query: z.ZodType<ListArgs>
  item: z.ZodType
  read: (tenant: string, id: number, q: ListArgs) => Promise<Found>
  wire: (row: Row, ctx: WireCtx) => Row
}

/** Connection logs, uplink messages and downlink messages: account-wide, per device, per gateway, per group. */
export function logRoutes({ meta }: Deps, v: LogVariant) {
  const logs = meta.logs
  const connect = { query: v.ConnectLogListQuery, item: v.ConnectLog, wire: v.connectLogWire.list }
  const events = { query: v.EventListQuery, item: v.Event, wire: v.eventWire.list }
  const control = { query: v.ControlLogListQuery, item: v.ControlLog, wire: v.controlLogWire.list }
  const lists: LogList[] = [
    {
      path: '/device_connect_logs',
      summary: 'Connection logs',
      ...connect,
      read: (t, _id, q) => logs.connectLogs(t, q),
    },
    {
      path: '/device_events',
      summary: 'Uplink messages',
      ...events,
      read: (t, _, q) => logs.events(t, q),
    },
    {
      path: '/device_control_logs',
      summary: 'Downlink messages',
      ...control,
      read: (t, _id, q) => logs.controlLogs(t, q),
    },
    {
      path: '/devices/:id/events',
      summary: 'Uplink messages of a device',
      ...events,
      read: (t, id, q) => logs.deviceEvents(t, id, q),
    },
    {
      path: '/devices/:id/connect_logs',
      summary: 'Connection logs of a device',
      ...connect,
      read: (t, id, q) => logs.deviceConnectLogs(t, id, q),
    },
    {
      path: '/devices/:id/control_logs',
      summary: 'Downlink messages of a device',
      ...control,
      read: (t, id, q) => logs.deviceControlLogs(t, id, q),
    },
    {
      path: '/gateways/:id/events',
      summary: 'Uplink messages of a gateway',
      query: v.GatewayEventListQuery,
      item: v.GatewayEvent,
      wire: v.eventWire.gateway,
      read: (t, id, q) => logs.deviceEvents(t, id, q, 'gateway'),
    },
    {
      path: '/gateways/:id/control_logs',
      summary: 'Control logs of a gateway (structured payload)',
      query: v.GatewayControlLogListQuery,
      item: v.GatewayControlLog,
      wire: v.controlLogWire.gateway,
      read: (t, id, q) => logs.deviceControlLogs(t, id, q, 'gateway'),
    },
    {
      path: '/groups/:id/control_logs',
      summary: 'Control logs of a group',
      query: v.GroupControlLogListQuery,
      item: v.GroupControlLog,
      wire: v.controlLogWire.group,
      read: (t, id, q) => logs.groupControlLogs(t, id, q),
    },
  ]
  const r = new Router()
  for (const { path, summary, query, item, read, wire } of lists)
    crud(r, {
      tag,
      path,
      list: { summary, query, form: Form.of(item, wire), read: (t, q, id) => read(t, id, q) },
    })
  return r
}
