/**
 * The API's Variant B (API_VARIANT=B) seen through Variant A's shapes. The console's pages are written against
 * Variant A; when index.html names Variant B, `api()` hands every call to `adaptB()`, which rewrites the request
 * (filters, sort key, body) and the answer by the table `RULES`, so that a page sends A's bodies and receives A's
 * shapes. What B lacks reads null (the page shows nothing); a list filter B cannot apply answers an empty page.
 * Record ids in paths are the same in both variants. Shapes: src/schemas/*-b.ts against their Variant A files.
 */
type Json = Record<string, unknown>
type Init = { method?: string; body?: unknown }
/** The plain HTTP call (`api()` without the adapter). */
export type Send = (path: string, init?: Init) => Promise<unknown>

/** What a rule may use: the plain call, and the console's error of a body refused before it is sent (422). */
export interface Ctx {
  send: Send
  invalid: (message: string, errors: Record<string, unknown>) => Error
}

/** How one list's query changes: A's filter names → B's, B's sort keys, what B cannot filter by. */
interface QuerySpec {
  rename?: Record<string, string>
  /** Values of B fields that are codes of another enumeration. */
  values?: Record<string, (v: string) => string>
  /** The `_sort` keys B takes (B's names); another is dropped (B's default order). */
  sorts: readonly string[]
  /** A's filters B has no field for: a list filtered by one answers an empty page. */
  unmappable?: readonly string[]
}

/** One endpoint (or several) whose shapes differ between the variants. */
export interface Rule {
  /** What the table says about it (the report of what is mapped). */
  name: string
  method: 'GET' | 'POST' | 'PUT'
  /** Matched against the path without its query. */
  path: RegExp
  query?: QuerySpec
  /** A's body → B's; may read through `ctx.send`. */
  body?: (b: Json, ctx: Ctx) => Json | Promise<Json>
  /** B's answer → A's. */
  answer?: (a: Json, ctx: Ctx) => Json | Promise<Json>
}

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {})

/** Copies the keys of `b` that are named (and present). */
const pick = (b: Json, keys: readonly string[]) =>
  Object.fromEntries(keys.filter((k) => k in b).map((k) => [k, b[k]]))

/** Maps each item of a page (`{items, meta}`). */
const eachItem =
  (f: (x: Json) => Json) =>
  (page: Json): Json => ({
    ...page,
    items: Array.isArray(page.items) ? page.items.map((x) => f(obj(x))) : page.items,
  })

// ---- devices ----

/** Variant B's deviceType (0 terminal, 1 gateway, 2 smartphone) and A's (1 terminal, 3 smartphone). */
const TYPE_A: Record<number, number> = { 0: 1, 2: 3 }
const TYPE_B: Record<number, number> = { 1: 0, 3: 2 }
const typeToB = (v: string) =>
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

/** Variant A's device list filters and sort keys as B's. */
const DEVICE_QUERY: QuerySpec = {
  values: { deviceType: typeToB },
  sorts: [
    'id',
    'createAt',
    'updateAt',
    'lastSeenAt',
    'deviceName',
    'deviceID',
    'deviceType',
    'productID',
    'gateway',
  ],
  unmappable: [
    'deviceStatus',
    'parentDevice',
    'upLinkSystem',
    'cloudProtocol',
    'productIntID',
    'productName',
  ],
}

/** deviceIntID → deviceID, read once per device (the publish bodies of B name the device by deviceID). */
const deviceIDs = new Map<number, string>()
async function deviceIDOf(id: unknown, send: Send): Promise<unknown> {
  const n = Number(id)
  if (!deviceIDs.has(n)) deviceIDs.set(n, String(obj(await send(`/devices/${n}`)).deviceID))
  return deviceIDs.get(n)
}

/** productID → the product's record id (A's devices carry productIntID, B's do not). */
const productIntIDs = new Map<string, number>()

/** Fills `productIntID` of A-shaped devices from one read of their products; left null if that fails. */
async function withProductIntIDs(devices: Json[], { send }: Ctx): Promise<Json[]> {
  const missing = [...new Set(devices.map((d) => String(d.productID)))].filter(
    (p) => !productIntIDs.has(p),
  )
  if (missing.length)
    try {
      const q = new URLSearchParams({ productID_in: missing.join(','), _limit: '100' })
      const page = obj(await send(`/products?${q}`))
      for (const p of Array.isArray(page.items) ? page.items : [])
        productIntIDs.set(String(obj(p).productID), Number(obj(p).id))
    } catch {
      // the page shows the devices without their product's link
    }
  return devices.map((d) => ({
    ...d,
    productIntID: productIntIDs.get(String(d.productID)) ?? null,
  }))
}

const deviceAnswer = async (d: Json, ctx: Ctx) =>
  (await withProductIntIDs([deviceToA(d)], ctx))[0] ?? {}

const devicePageAnswer = async (page: Json, ctx: Ctx) => {
  const items = Array.isArray(page.items) ? page.items.map((x) => deviceToA(obj(x))) : []
  return { ...page, items: await withProductIntIDs(items, ctx) }
}

async function publishToB(b: Json, { send }: Ctx): Promise<Json> {
  const { deviceIntID, ...rest } = b
  if (rest.deviceID === undefined && deviceIntID !== undefined)
    rest.deviceID = await deviceIDOf(deviceIntID, send)
  return rest
}

async function groupPublishToB(b: Json, { send }: Ctx): Promise<Json> {
  const { groupIntID, ...rest } = b
  if (rest.groupID === undefined && groupIntID !== undefined)
    rest.groupID = obj(await send(`/groups/${Number(groupIntID)}`)).groupID
  return rest
}

// ---- products, groups, logs ----

/** A Variant B product as A's: MQTT, without the `devices` list; a list item's counts B has not: null. */
export const productToA = (p: Json): Json => {
  const { devices: _devices, ...rest } = p
  return { ...rest, cloudProtocol: 1, cloudProtocolLabel: 'MQTT' }
}
const productItemToA = (p: Json): Json => ({
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

const CONNECT_LOG_QUERY: QuerySpec = {
  rename: { connectStatus: 'deviceStatus' },
  sorts: ['id', 'createAt', 'updateAt', 'msgTime', 'deviceName', 'deviceID', 'IP', 'deviceStatus'],
}

const ID = '(\\d+)'
const path = (p: string) => new RegExp(`^${p.replaceAll(':id', ID)}$`)

/** The endpoints whose shapes differ, in the order they are tried (first match wins). */
export const RULES: readonly Rule[] = [
  {
    name: 'GET /devices (list)',
    method: 'GET',
    path: path('/devices'),
    query: DEVICE_QUERY,
    answer: devicePageAnswer,
  },
  { name: 'GET /devices/{id}', method: 'GET', path: path('/devices/:id'), answer: deviceAnswer },
  {
    name: 'POST /devices',
    method: 'POST',
    path: path('/devices'),
    body: deviceCreateToB,
    answer: deviceAnswer,
  },
  {
    name: 'PUT /devices/{id}',
    method: 'PUT',
    path: path('/devices/:id'),
    body: deviceUpdateToB,
    answer: deviceAnswer,
  },
  {
    name: 'GET /devices/{id}/connect_logs, /device_connect_logs',
    method: 'GET',
    path: path('(?:/devices/:id/connect_logs|/device_connect_logs)'),
    query: CONNECT_LOG_QUERY,
    answer: eachItem(connectLogToA),
  },
  {
    name: 'GET /products (list)',
    method: 'GET',
    path: path('/products'),
    query: {
      sorts: ['id', 'createAt', 'updateAt', 'productName', 'productID', 'description'],
      unmappable: ['cloudProtocol'],
    },
    answer: eachItem(productItemToA),
  },
  { name: 'GET /products/{id}', method: 'GET', path: path('/products/:id'), answer: productToA },
  {
    name: 'POST /products',
    method: 'POST',
    path: path('/products'),
    body: productCreateToB,
    answer: productToA,
  },
  {
    name: 'PUT /products/{id}',
    method: 'PUT',
    path: path('/products/:id'),
    body: (b) => pick(b, ['productName', 'description']),
    answer: productToA,
  },
  {
    name: 'GET /groups/{id}/devices',
    method: 'GET',
    path: path('/groups/:id/devices'),
    answer: eachItem(groupDeviceToA),
  },
  { name: 'GET /groups (list)', method: 'GET', path: path('/groups'), answer: eachItem(groupToA) },
  { name: 'GET /groups/{id}', method: 'GET', path: path('/groups/:id'), answer: groupToA },
  {
    name: 'POST /groups',
    method: 'POST',
    path: path('/groups'),
    answer: groupToA,
  },
  { name: 'PUT /groups/{id}', method: 'PUT', path: path('/groups/:id'), answer: groupToA },
  {
    name: 'GET /policies/{id}/devices',
    method: 'GET',
    path: path('/policies/:id/devices'),
    answer: eachItem((d) => ({ ...d, deviceType: TYPE_A[Number(d.deviceType)] ?? null })),
  },
  { name: 'POST /device_publish', method: 'POST', path: path('/device_publish'), body: publishToB },
  {
    name: 'POST /group_publish',
    method: 'POST',
    path: path('/group_publish'),
    body: groupPublishToB,
  },
]

/** The rule of a call, if its shapes differ. */
export function ruleOf(method: string, pathname: string): Rule | undefined {
  return RULES.find((r) => r.method === method && r.path.test(pathname))
}

/** A's list query → B's; null when it filters by something B has not (the answer is then an empty page). */
export function queryToB(spec: QuerySpec, q: URLSearchParams): URLSearchParams | null {
  const out = new URLSearchParams()
  for (const [key, value] of q) {
    if (key === '_sort') {
      const sort = spec.rename?.[value] ?? value
      if (spec.sorts.includes(sort)) out.set(key, sort)
      continue
    }
    const [, field = key, suffix = ''] = /^(.+?)(_like|_in)?$/.exec(key) ?? []
    if (spec.unmappable?.includes(field)) return null
    const name = spec.rename?.[field] ?? field
    const map = spec.values?.[name]
    out.append(`${name}${suffix}`, map ? map(value) : value)
  }
  return out
}

/** Calls `path` as Variant A would answer it, through `send` (Variant B's API). */
export async function adaptB(path: string, init: Init, ctx: Ctx): Promise<unknown> {
  const { send } = ctx
  const method = (init.method ?? 'GET').toUpperCase()
  const [pathname = path, search = ''] = path.split('?', 2)
  const rule = ruleOf(method, pathname)
  if (!rule) return send(path, init)
  let target = path
  if (rule.query && search) {
    const q = new URLSearchParams(search)
    const b = queryToB(rule.query, q)
    if (!b) {
      const limit = Number(q.get('_limit') ?? 10)
      return { items: [], meta: { count: 0, page: Number(q.get('_page') ?? 1), limit } }
    }
    target = b.toString() ? `${pathname}?${b}` : pathname
  }
  const body =
    rule.body && init.body !== undefined ? await rule.body(obj(init.body), ctx) : init.body
  const answer = await send(target, { ...init, body })
  return rule.answer && answer !== null ? rule.answer(obj(answer), ctx) : answer
}
