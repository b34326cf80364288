/**
 * The field mappings of the console's Variant B adapter (src/console/api/variant.ts): each Variant B record as Variant
 * A's (what B lacks: null) and each Variant A body as B's. Shapes: src/variant-b/schemas/ against their Variant A files.
 */
export type Json = Record<string, unknown>
export type Init = { method?: string; body?: unknown }
/** The plain HTTP call (`api()` without the adapter). */
export type Send = (path: string, init?: Init) => Promise<unknown>

/** What a rule may use: the plain call, and the console's error of a body refused before it is sent (422). */
export interface Ctx {
  send: Send
  invalid: (message: string, errors: Record<string, unknown>) => Error
}

/** `v` as a JSON object (anything else: empty). */
export const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {})

/** Copies the keys of `b` that are named (and present). */
export const pick = (b: Json, keys: readonly string[]) =>
  Object.fromEntries(keys.filter((k) => k in b).map((k) => [k, b[k]]))

/** Maps each item of a page (`{items, meta}`). */
export const eachItem =
  (f: (x: Json) => Json) =>
  (page: Json): Json => ({
    ...page,
    items: Array.isArray(page.items) ? page.items.map((x) => f(obj(x))) : page.items,
  })

// ---- devices ----

/** Variant B's deviceType (0 terminal, 1 gateway, 2 smartphone) and A's (1 terminal, 3 smartphone). */
export const TYPE_A: Record<number, number> = { 0: 1, 2: 3 }
export const TYPE_B: Record<number, number> = { 1: 0, 3: 2 }
export const typeToB = (v: string) =>
  v
    .split(',')
    .map((x) => String(TYPE_B[Number(x)] ?? x))
    .join(',')

/** Variant A device fields Variant B has not: null. */
const DEVICE_NULLS = Object.fromEntries(
  [
    'upLinkSystemLabel',
    'gatewayName',
    'parentDevice',
    'parentDeviceName',
    'productIntID',
    'modBusIndex',
    'carrier',
    'carrierLabel',
    'physicalNetwork',
    'physicalNetworkLabel',
    'IMEI',
    'IMSI',
    'autoSub',
    'deviceConsoleIP',
    'deviceConsolePort',
    'deviceConsoleUsername',
    'latitude',
    'longitude',
    'lora',
    'metaData',
    'scopes',
  ].map((k) => [k, null]),
)

/**
 * A Variant B device (list, detail, create and edit answers) as Variant A's: `status` → `deviceStatus`, the
 * deviceType code, the cloud protocol (B's devices speak MQTT), how it reaches the cloud; a B gateway
 * (deviceType 1) has no A deviceType (A lists gateways apart).
 */
export function deviceToA(d: Json): Json {
  const { status, statusLabel, ...rest } = d
  const type = Number(d.deviceType)
  const gateway = type === 1
  return {
    ...DEVICE_NULLS,
    ...rest,
    deviceStatus: status,
    deviceStatusLabel: statusLabel,
    deviceType: TYPE_A[type] ?? null,
    upLinkSystem: gateway ? null : d.gateway ? 2 : 1,
    cloudProtocol: 1,
    cloudProtocolLabel: 'MQTT',
  }
}

/** The descriptive fields both variants take as they are. */
const DESCRIBED = ['manufacturer', 'serialNumber', 'softVersion', 'hardwareVersion', 'description']

/** A's location (a JSON object or a string) as B's installation-place string. */
const locationToB = (v: unknown) =>
  v === null || v === undefined || typeof v === 'string' ? v : JSON.stringify(v)

/** What create and edit share: A's deviceType code, location, gateway (when it hangs off one). */
function deviceWriteToB(b: Json, keys: readonly string[]): Json {
  const out = pick(b, keys)
  if (b.deviceType !== undefined && b.deviceType !== null)
    out.deviceType = TYPE_B[Number(b.deviceType)] ?? b.deviceType
  if ('location' in b) out.location = locationToB(b.location)
  if ('gateway' in b)
    out.gateway = b.upLinkSystem === undefined || b.upLinkSystem === 2 ? b.gateway : null
  return out
}

/** A's create body → B's: a terminal unless A's deviceType says smartphone; A's protocol fields dropped. */
export function deviceCreateToB(b: Json): Json {
  const out = deviceWriteToB(b, [
    'deviceName',
    'productID',
    'authType',
    'deviceID',
    'deviceUsername',
    'token',
    ...DESCRIBED,
  ])
  out.deviceType ??= 0
  return out
}

/** A's edit body (the record as read, changed) → B's edit fields. */
export const deviceUpdateToB = (b: Json): Json =>
  deviceWriteToB(b, ['deviceName', 'authType', 'blocked', ...DESCRIBED])

// ---- products, groups, logs ----

/** A Variant B product as A's: MQTT, without the `devices` list; a list item's counts B has not: null. */
export const productToA = (p: Json): Json => {
  const { devices: _devices, ...rest } = p
  return { ...rest, cloudProtocol: 1, cloudProtocolLabel: 'MQTT' }
}
export const productItemToA = (p: Json): Json => ({
  appCount: null,
  dataPointCount: null,
  dataStreamCount: null,
  itemCount: null,
  ...productToA(p),
})

/** A's product create body → B's (productName, description): B's products are MQTT only. */
export function productCreateToB(b: Json, { invalid }: Pick<Ctx, 'invalid'>): Json {
  if (b.cloudProtocol !== undefined && b.cloudProtocol !== null && Number(b.cloudProtocol) !== 1)
    throw invalid('this service makes MQTT products only', {
      cloudProtocol: 'must be 1 (MQTT)',
    })
  return pick(b, ['productName', 'description'])
}

/** A Variant B group as A's: `deviceCount` in place of the `devices` list. */
export const groupToA = (g: Json): Json => {
  const { devices, ...rest } = g
  return { ...rest, deviceCount: Array.isArray(devices) ? devices.length : null }
}

/** A member of a group (B's device list form) as A's, which carries both status names. */
export const groupDeviceToA = (d: Json): Json => ({
  ...d,
  deviceType: TYPE_A[Number(d.deviceType)] ?? null,
  deviceStatus: d.status,
  deviceStatusLabel: d.statusLabel,
})

/** A connection log of B (`deviceStatus`, 2 = authentication failed) as A's (`connectStatus`). */
export const connectLogToA = (l: Json): Json => {
  const { deviceStatus, deviceStatusLabel, ...rest } = l
  return { ...rest, connectStatus: deviceStatus, connectStatusLabel: deviceStatusLabel }
}
