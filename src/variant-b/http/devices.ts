/**
 * Devices in Variant B over Variant A's device and gateway services. A Variant B gateway (deviceType 1) is stored
 * as a gateway, so the broker and ingest treat its credentials as a gateway's (it may send for the devices hanging
 * off it); terminals (0) and smartphones (2) are devices of deviceType 1 and 3. Reads list both kinds together
 * and answer Variant B's field names (src/variant-b/wire/devices.ts).
 */
import type { Deps } from '../../deps.ts'
import { hostPort } from '../../kernel/endpoints.ts'
import type { Filter, ListArgs } from '../../../store/types.ts'
import { Invalid, NotFound } from '../../kernel/errors.ts'
import type { DeviceAccess } from '../../routes/devices.ts'
import type { Actor } from '../../services/types.ts'
import type { DeviceUpdate } from '../../schemas/devices.ts'
import type { GatewayUpdate } from '../../schemas/gateways.ts'
import {
  described as describedB,
  type DeviceCreateB,
  type DeviceUpdateB,
} from '../schemas/devices.ts'
import { deviceTypeB, recordB, type Brokers, type DeviceRecordB } from '../wire/devices.ts'

type Kind = 'device' | 'gateway'

/** Variant B deviceType → the stored kind and (for devices) the stored deviceType. */
const STORED: Record<number, { kind: Kind; deviceType: number | null }> = {
  0: { kind: 'device', deviceType: 1 },
  1: { kind: 'gateway', deviceType: null },
  2: { kind: 'device', deviceType: 3 },
}

type Described = Pick<DeviceCreateB, keyof typeof describedB>
const DESCRIBED = Object.keys(describedB) as Array<keyof Described>

/** The descriptive fields of a Variant B body (each key, given or not), as the stores take them. */
function described(b: Partial<DeviceCreateB>): Partial<Described> {
  return Object.fromEntries(DESCRIBED.map((k) => [k, b[k]]))
}

/** Only terminals (deviceType 0) hang off a gateway. */
function refuseGateway(type: number, gateway: number | null | undefined) {
  if (type !== 0 && gateway)
    throw new Invalid({
      gateway: 'only a terminal (deviceType 0) hangs off a gateway',
    })
}

/** How a terminal reaches the cloud: through its gateway, else directly. */
const upLink = (gateway: number | null | undefined) => (gateway ? 2 : 1)

/**
 * Deletes and list filters by Variant B's deviceType: each code is a kind (and a stored deviceType for
 * devices). `deviceType`, `deviceType_like` and `deviceType_in` all compare the code exactly.
 */
function byType(filters: Filter[]): { filters: Filter[]; kinds: Kind[] } {
  let codes: number[] | undefined
  const rest: Filter[] = []
  for (const f of filters) {
    if (f.field !== 'deviceType') {
      rest.push(f)
      continue
    }
    const given = (Array.isArray(f.value) ? f.value : [f.value]).map(Number)
    codes = (codes ?? given).filter((c) => given.includes(c))
  }
  if (codes === undefined) return { filters: rest, kinds: ['device', 'gateway'] }
  const known = codes.filter((c) => STORED[c] !== undefined)
  const kinds = [...new Set(known.map((c) => STORED[c]!.kind))]
  const types = known.map((c) => STORED[c]!.deviceType).filter((t): t is number => t !== null)
  // gateways have no stored deviceType: with them, only the kinds narrow the list
  if (kinds.includes('gateway') || types.length === 0) return { filters: rest, kinds }
  return { filters: [...rest, { field: 'deviceType', op: 'in', value: types }], kinds }
}

/** Where Variant B's records say devices connect: the embedded broker's MQTT and MQTTS addresses. */
function brokersOf(endpoints: Deps['endpoints']): Brokers {
  return {
    mqttBroker: hostPort(endpoints.mqtt),
    mqttsBroker: hostPort(endpoints.mqtts),
    // the TLS listener also takes client certificates: mutual authentication on the same port
    mqttssBroker: hostPort(endpoints.mqtts),
    coapBroker: null,
    coapsBroker: null,
    coapssBroker: null,
  }
}

/** Variant B's devices over the device and gateway services. */
export function deviceAccessB({
  meta,
  services,
  endpoints,
}: Pick<Deps, 'meta' | 'services' | 'endpoints'>): DeviceAccess<
  DeviceRecordB,
  DeviceCreateB,
  DeviceUpdateB
> {
  const brokers = brokersOf(endpoints)
  const get = async (tenant: string, id: number) =>
    recordB(await meta.devices.getAny(tenant, id), brokers)

  return {
    async list(tenant: string, query: ListArgs, opts: { groupID?: string }) {
      const { filters, kinds } = byType(query.filters)
      if (kinds.length === 0) return { items: [], count: 0 }
      const page = await meta.devices.list(tenant, { ...query, filters }, { ...opts, kinds })
      return { ...page, items: page.items.map((r) => recordB(r)) }
    },

    get,

    async create(a, body) {
      return get(a.tenant, await createB(services, a, body))
    },

    async update(a, id, body) {
      await updateB({ meta, services }, a, id, body)
      return get(a.tenant, id)
    },

    /** Devices first, then gateways, so a gateway deleted with its devices is no longer in use. */
    async remove(a, ids) {
      const rows = await Promise.all(
        ids.map((id) => meta.devices.getAny(a.tenant, id).catch(() => undefined)),
      )
      if (rows.some((r) => r === undefined)) throw new NotFound('ids')
      const of = (kind: Kind) => rows.filter((r) => r!.kind === kind).map((r) => Number(r!.id))
      const devices = of('device')
      const gateways = of('gateway')
      if (devices.length) await services.devices.remove(a, devices)
      if (gateways.length) await services.gateways.remove(a, gateways)
    },
  }
}

/** Creates the gateway or device a Variant B body describes; its id. */
async function createB(services: Deps['services'], a: Actor, body: DeviceCreateB): Promise<number> {
  const { kind, deviceType } = STORED[body.deviceType]!
  const credentials = {
    deviceID: body.deviceID,
    deviceUsername: body.deviceUsername,
    token: body.token,
  }
  refuseGateway(body.deviceType, body.gateway)
  if (kind === 'gateway') {
    const gw: GatewayUpdate = {
      gatewayName: body.deviceName,
      productID: body.productID,
      gatewayProtocol: 1,
      authType: body.authType,
      ...credentials,
      ...described(body),
    }
    return Number((await services.gateways.create(a, gw)).id)
  }
  const device: DeviceUpdate = {
    productID: body.productID,
    deviceName: body.deviceName,
    deviceType: deviceType!,
    upLinkSystem: deviceType === 1 ? upLink(body.gateway) : null,
    gateway: body.gateway ?? null,
    authType: body.authType,
    ...credentials,
    ...described(body),
  }
  return Number((await services.devices.create(a, device)).id)
}

/** Edits a gateway or a device from a Variant B body; neither becomes the other. */
async function updateB(
  { meta, services }: Pick<Deps, 'meta' | 'services'>,
  a: Actor,
  id: number,
  body: DeviceUpdateB,
) {
  const current = await meta.devices.getAny(a.tenant, id)
  const type = body.deviceType ?? deviceTypeB(current)
  const { kind, deviceType } = STORED[type]!
  if (kind !== current.kind)
    throw new Invalid({
      deviceType: 'a device cannot become a gateway, nor a gateway a device',
    })
  const common = {
    authType: body.authType,
    blocked: body.blocked,
    ...described(body),
  }
  refuseGateway(type, body.gateway)
  if (kind === 'gateway') {
    await services.gateways.update(a, id, { gatewayName: body.deviceName, ...common })
    return
  }
  const device: DeviceUpdate = { deviceName: body.deviceName, ...common }
  // the stored links stay unless the type or the gateway changes (the record as read repeats both)
  const gateway = body.gateway === undefined ? current.gateway : body.gateway
  const typeChanged = deviceType !== Number(current.deviceType)
  if (typeChanged || gateway !== (current.gateway ?? null))
    Object.assign(
      device,
      deviceType === 1
        ? { deviceType, upLinkSystem: upLink(gateway), gateway: gateway ?? null }
        : { deviceType, upLinkSystem: null, gateway: null },
    )
  await services.devices.update(a, id, device)
}
