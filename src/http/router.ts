import { Hono, type Context, type TypedResponse } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { JSONParsed } from 'hono/utils/types'
import type { z } from 'zod'
import { ApiError, issuesToErrors } from '../errors.ts'
import type { AppEnv } from './env.ts'
import { resolveListTimes } from './paging.ts'
import { bodyText } from './body.ts'
import { audited, type AuditWhat } from '../kernel/audit.ts'
import { actionOf, routeAudit, type RouteAudit } from './audit-routes.ts'

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** An `:id` that cannot be a record id: 404 like an unknown one (src/app.ts answers 405 when another route has it). */
export class NotARecordId extends ApiError {
  constructor() {
    super('DATA_NOT_FOUND', { id: 'not found' })
  }
}

/** One route: what validates it and what documents it (the OpenAPI document is built from these). */
export interface RouteDef {
  method: Method
  /** Hono path under /api/v1, e.g. `/devices/:id`. */
  path: string
  summary: string
  tag: string
  query?: z.ZodType
  body?: z.ZodType
  /** Response body schema; omitted for an empty body. */
  response?: z.ZodType
  status?: number
  /** Only admins (users, applications). */
  admin?: boolean
  /** Write route that viewers may call anyway (none by default). */
  viewerMayWrite?: boolean
  /** Not behind auth (login, signup, openapi). */
  public?: boolean
  description?: string
  /** Request body is not JSON (multipart, NDJSON): the handler reads it itself. */
  rawBody?: {
    contentType: string
    description: string
    /** What the handler checks of a body of `contentType` (documentation only). */
    schema?: z.ZodType
    /** Other content types it takes: content type → what it holds. */
    alternatives?: Record<string, string>
  }
  /** Non-JSON answers of the success status: content type → what it holds (CSV, NDJSON, SSE). */
  produces?: Record<string, string>
  /** Error statuses beyond those the router derives from the definition (see errorStatuses in openapi.ts). */
  errors?: readonly number[]
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined

export interface Input<D extends RouteDef> {
  query: Out<D['query']>
  body: Out<D['body']>
  /** The `:id` path parameter, when the path has one. */
  id: number
  params: Record<string, string>
}

/** An unchecked handler: any Response (routes not yet migrated to `Router.typed`). */
export type Handler<D extends RouteDef> = (
  c: Context<AppEnv>,
  input: Input<D>,
) => Response | Promise<Response>

/**
 * What a handler of `Router.typed` answers. A route with a `response` schema answers hono's `c.json(body, status)`
 * whose body is that schema's output (as JSON); a route without one answers any Response (`c.body(null, 204)`).
 * The status is not checked: hono infers `c.json`'s status type from this very type, so it would prove nothing.
 */
export type Answer<D extends RouteDef> = D['response'] extends z.ZodType
  ? Response & TypedResponse<JSONParsed<z.output<D['response']>>, ContentfulStatusCode, 'json'>
  : Response

/** A handler whose answer is checked against its route at compile time. */
export type TypedHandler<D extends RouteDef> = (
  c: Context<AppEnv>,
  input: Input<D>,
) => Answer<D> | Promise<Answer<D>>

/**
 * A Hono sub-app that records its routes. Each route's query and body are validated by its zod schemas before
 * the handler runs: a bad query parameter is 400 PARAMETER_INVALID, a non-JSON body 400 BAD_REQUEST, an invalid
 * body 422 FORM_INVALID. A non-integer `:id` is 404, as an unknown one. Viewers may only read.
 */
export class Router {
  readonly app = new Hono<AppEnv>()
  readonly defs: RouteDef[] = []
  /** Where each of `defs` was declared: an Error taken there, its stack read only when asked (declaredAt). */
  private readonly sites: Error[] = []

  route<const D extends RouteDef>(def: D, handler: Handler<D>): this {
    this.defs.push(def)
    this.sites.push(new Error('route declared'))
    const audit = auditDeclOf(def)
    this.app.on(def.method.toUpperCase(), def.path, async (c) => {
      if (!def.public) authorize(c, def)
      const params = c.req.param() as Record<string, string>
      let id = 0
      if (params.id !== undefined) {
        if (!/^\d{1,15}$/.test(params.id)) throw new NotARecordId()
        id = Number(params.id)
      }
      const query = def.query ? parseQuery(def.query, c) : undefined
      const parsed = def.body ? await parseBody(def.body, c) : undefined
      const input = { query, body: parsed?.data, id, params } as Input<D>
      const what = audit && auditWhat(audit, input, c, parsed?.sent ?? [])
      if (!what) return handler(c, input)
      return audited(auditWho(c), what, async () => handler(c, input))
    })
    return this
  }

  /**
   * `route` with the handler's answer checked at compile time against the route's `response` schema (see
   * Answer): answering another shape or a stored record does not compile. Routes move from `route` to `typed`
   * one file (or one route) at a time; the runtime is the same.
   */
  typed<const D extends RouteDef>(def: D, handler: TypedHandler<D>): this {
    return this.route(def, handler)
  }

  /**
   * Where `defs[i]` was declared, as `file:line`: the first frame of its stack outside src/http/ (a route that a
   * helper there builds is named by the helper's caller), its file relative to `root` (`npm run routes`).
   */
  declaredAt(i: number, root: string): string {
    for (const frame of this.sites[i]?.stack?.split('\n').slice(1) ?? []) {
      const m = /\(?(?:file:\/\/)?(\/[^():]+):(\d+):\d+\)?$/.exec(frame.trim())
      if (m && !m[1]!.includes('/src/http/') && !m[1]!.includes('/node_modules/'))
        return `${m[1]!.startsWith(root + '/') ? m[1]!.slice(root.length + 1) : m[1]}:${m[2]}`
    }
    return '(unknown)'
  }
}

/**
 * What a write route records in the audit log (src/http/audit-routes.ts); null for reads and public routes (their
 * callers are devices, brokers or not signed in yet: sign-ins are recorded by the accounts service), and for a
 * path it knows no resource of (a router of a test): test/src/routes/audit-log.test.ts holds every write route of
 * the app to a declaration.
 */
function auditDeclOf(def: RouteDef): RouteAudit | null {
  if (def.method === 'get' || def.public) return null
  return routeAudit(def.method, def.path) ?? null
}

/** Who calls, for the audit log. */
function auditWho(c: Context<AppEnv>) {
  const caller = c.get('caller')
  return {
    tenantID: caller.tenantID,
    userIntID: caller.userIntID,
    username: caller.username,
    role: caller.kind === 'application' ? 'application' : caller.role,
    clientIP: c.get('clientAddress') ?? null,
    requestID: c.get('requestId') ?? null,
  }
}

/**
 * The change a write route's call makes, for the audit log; null when it has no record to name. `changed`: the
 * fields the body named (`sent`), not those its schema defaulted.
 */
function auditWhat(
  decl: RouteAudit,
  input: Input<RouteDef>,
  c: Context<AppEnv>,
  changed: string[],
): AuditWhat | null {
  const { target, ...rest } = decl
  const body = input.body as Record<string, unknown> | undefined
  const what = { ...rest, action: actionOf(decl, body), changed }
  if (target === 'id') return { ...what, target: { kind: 'ids', ids: [input.id] } }
  if (target === 'self') {
    const self = c.get('caller').userIntID
    return self === null ? null : { ...what, target: { kind: 'ids', ids: [self] } }
  }
  const query = input.query as { ids?: unknown; taskIDs?: unknown } | undefined
  if (target === 'ids') {
    const ids = query?.ids
    return Array.isArray(ids) ? { ...what, target: { kind: 'ids', ids: ids as number[] } } : null
  }
  if (target === 'taskIDs') {
    // a cancel's commands, by task id (the store knows which of them a cancel can touch)
    const keys = query?.taskIDs
    return Array.isArray(keys)
      ? { ...what, target: { kind: 'keys', column: 'task_id', keys: keys as string[] } }
      : null
  }
  return { ...what, target: { kind: target } }
}

function authorize(c: Context<AppEnv>, def: RouteDef) {
  const caller = c.get('caller')
  if (!caller)
    throw new ApiError('AUTH_FAILED', {
      authorization: c.get('authProblem') ?? 'missing credentials',
    })
  if (def.admin && caller.role !== 'admin')
    throw new ApiError('PERMISSION_DENIED', { role: 'admin role required' })
  if (def.method !== 'get' && caller.role === 'viewer' && !def.viewerMayWrite)
    throw new ApiError('PERMISSION_DENIED', { role: 'viewers may only read' })
}

function parseQuery(schema: z.ZodType, c: Context<AppEnv>) {
  const r = schema.safeParse(c.req.query())
  if (!r.success) throw new ApiError('PARAMETER_INVALID', issuesToErrors(r.error.issues))
  resolveListTimes(r.data, c.get('tz'))
  return r.data
}

async function parseBody(schema: z.ZodType, c: Context<AppEnv>) {
  // read outside the try: a body over the limit is PAYLOAD_TOO_LARGE, not invalid JSON
  const text = await bodyText(c)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ApiError('BAD_REQUEST', { body: 'not valid JSON' })
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ApiError('BAD_REQUEST', { body: 'must be a JSON object' })
  const r = schema.safeParse(json)
  if (!r.success) throw new ApiError('FORM_INVALID', issuesToErrors(r.error.issues))
  const known = fieldsOf(schema)
  const sent = Object.keys(json).filter((k) => !known || known.has(k))
  return { data: r.data, sent }
}

/** The top-level fields an object schema takes (through a transform or pipe); undefined for other schemas. */
function fieldsOf(schema: z.ZodType): Set<string> | undefined {
  const def = (schema as { def?: { type?: string; in?: z.ZodType } }).def
  if (def?.type === 'pipe' && def.in) return fieldsOf(def.in)
  const shape = (schema as { shape?: Record<string, unknown> }).shape
  return def?.type === 'object' && shape ? new Set(Object.keys(shape)) : undefined
}
