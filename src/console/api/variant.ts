/**
 * The API's Variant B (API_VARIANT=B) seen through Variant A's shapes. The console's pages are written against
 * Variant A; when index.html names Variant B, `api()` hands every call to `adaptB()`, which rewrites the request
 * (filters, sort key, body) and the answer by the table `RULES`, so that a page sends A's bodies and receives A's
 * shapes. What B lacks reads null (the page shows nothing); a list filter B cannot apply answers an empty page.
 * Record ids in paths are the same in both variants. Shapes: src/variant-b/schemas/ against their Variant A files.
 */
import {
  connectLogToA,
  deviceCreateToB,
  deviceToA,
  deviceUpdateToB,
  eachItem,
  groupDeviceToA,
  groupToA,
  obj,
  pick,
  productCreateToB,
  productItemToA,
  productToA,
  TYPE_A,
  typeToB,
  type Ctx,
  type Init,
  type Json,
  type Send,
} from './variant-maps.ts'

export type { Ctx, Send } from './variant-maps.ts'

/** How one list's query changes: A's filter names → B's, B's sort keys, what B cannot filter by. */
interface QuerySpec {
  rename?: Record<string, string>
  /** Values of B fields that are codes of another enumeration. */
  values?: Record<string, (v: string) => string>
  /** The `_sort` keys B takes (B's names); another is dropped (B's default order). */
  sorts: readonly string[]
  /** A's filters B has no field for: a list filtered by one answers an empty page. */
  unmappable?: readonly string[]
  /** Refuse (422) a call filtered by an unmappable field instead (an export must not hold more than asked). */
  refuse?: boolean
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
    name: 'GET /devices_export',
    method: 'GET',
    path: path('/devices_export'),
    query: {
      ...DEVICE_QUERY,
      sorts: DEVICE_QUERY.sorts.filter((k) => k !== 'lastSeenAt'),
      refuse: true,
    },
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

/** A's list query → B's; `{lacks}` when it filters by a field B has not. */
export function queryToB(spec: QuerySpec, q: URLSearchParams): URLSearchParams | { lacks: string } {
  const out = new URLSearchParams()
  for (const [key, value] of q) {
    if (key === '_sort') {
      const sort = spec.rename?.[value] ?? value
      if (spec.sorts.includes(sort)) out.set(key, sort)
      continue
    }
    const [, field = key, suffix = ''] = /^(.+?)(_like|_in)?$/.exec(key) ?? []
    if (spec.unmappable?.includes(field)) return { lacks: field }
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
    if ('lacks' in b && rule.query.refuse)
      throw ctx.invalid(`this API cannot filter by ${b.lacks}`, { [b.lacks]: 'not a filter here' })
    if ('lacks' in b) {
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
