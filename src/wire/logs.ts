import {
  ConnectLog,
  ControlLog,
  Event,
  GatewayControlLog,
  GatewayEvent,
  GroupControlLog,
} from '../schemas/logs.ts'
import { createSerializer, type Row, type WireCtx } from './shape.ts'

const times = ['msgTime', 'createAt', 'updateAt'] as const

export const connectLogWire = createSerializer(
  { list: ConnectLog },
  { labels: { connectStatus: 'connectStatus' }, times },
)

export const eventWire = createSerializer({ list: Event, gateway: GatewayEvent }, { times })

const controlLogForms = createSerializer(
  { list: ControlLog, group: GroupControlLog, gateway: GatewayControlLog },
  {
    labels: { publishStatus: 'publishStatus', commandStatus: 'commandStatus' },
    times: [...times, 'sentAt', 'deliveredAt', 'respondedAt', 'expiresAt'],
  },
)

/** A gateway control log's payload: the stored JSON when it is an object or array, else the stored text. */
export function structuredPayload(payload: unknown): unknown {
  if (typeof payload !== 'string') return payload ?? null
  try {
    const parsed: unknown = JSON.parse(payload)
    return parsed !== null && typeof parsed === 'object' ? parsed : payload
  } catch {
    return payload
  }
}

export const controlLogWire = {
  list: controlLogForms.list,
  group: controlLogForms.group,
  gateway: (row: Row, ctx: WireCtx): Row => ({
    ...controlLogForms.gateway(row, ctx),
    payload: structuredPayload(row.payload),
  }),
}
