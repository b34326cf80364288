import { Hono, type Context, type MiddlewareHandler } from 'hono'
import { limitBody } from './http/body.ts'
import { cors } from 'hono/cors'
import type { Deps } from './deps.ts'
import { ApiError } from './errors.ts'
import { authMiddleware } from './http/auth.ts'
import { toApiError } from './http/errors.ts'
import { consoleAssets, tileAttribution, wantsConsolePage } from './http/console.ts'
import { clientAddress, pickLang, socketAddress, type AppEnv } from './http/env.ts'
import { NotARecordId, type RouteDef } from './http/router.ts'
import { healthRoutes } from './http/health.ts'
import { metricsRoutes } from './http/metrics.ts'
import { observeRequests, routeOf } from './http/observe.ts'
import { buildOpenApi, renderDocs } from './openapi.ts'
import { allRoutes } from './routes/index.ts'
import { wireShapes, type WireShapes } from './wire/shapes.ts'
import { Unavailable } from './kernel/errors.ts'

import { SECURITY_HEADERS } from './http/security-headers.ts'

export const VERSION = '0.1.0'

function send(c: Context, e: ApiError) {
  for (const [k, v] of Object.entries(e.headers)) c.header(k, v)
  return c.json(e.toJSON(), e.status as 400)
}

export { SECURITY_HEADERS }

/** /docs is one page with an inline style sheet and links; no scripts, images or frames. */
export const DOCS_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next()
  for (const [k, v] of Object.entries(SECURITY_HEADERS))
    if (!c.res.headers.has(k)) c.res.headers.set(k, v)
}

/** A route template → a matcher of concrete paths (for 405 versus 404); `:id` is a record id, as the router has it. */
const matcher = (def: RouteDef) =>
  new RegExp(
    `^/api/v1${def.path.replace(/:(\w+)/g, (_, name) => (name === 'id' ? '\\d{1,15}' : '[^/]+'))}/?$`,
  )

/** 405 with Allow when other methods serve the request's path; undefined when none does. */
function methodNotAllowed(defs: readonly RouteDef[]) {
  const matchers = defs.map((d) => [d, matcher(d)] as const)
  return (c: Context) => {
    const path = c.req.path
    const allowed = matchers.filter(([, re]) => re.test(path)).map(([d]) => d.method.toUpperCase())
    if (!allowed.length) return undefined
    c.header('Allow', [...new Set(allowed)].join(', '))
    return send(
      c,
      new ApiError('METHOD_NOT_ALLOWED', { method: `${c.req.method} is not allowed here` }),
    )
  }
}

/** Sets what every handler reads of the request: its language, the time zone and the client's address. */
function requestContext(config: Deps['config']): MiddlewareHandler<AppEnv> {
  const proxies = new Set(config.TRUSTED_PROXIES)
  return async (c, next) => {
    c.set('lang', pickLang(c.req.header('accept-language')))
    c.set('tz', config.TIMEZONE)
    c.set(
      'clientAddress',
      clientAddress(socketAddress(c), c.req.header('x-forwarded-for'), proxies),
    )
    await next()
  }
}

/** The body limit of each API path: the device import's, HTTP ingest's, or the API's. */
function bodyLimits(config: Deps['config']): MiddlewareHandler<AppEnv> {
  const apiLimit = limitBody(config.BODY_LIMIT)
  const ingestLimit = limitBody(config.INGEST_BODY_LIMIT)
  // the upload's handler reads its multipart body from the web Request
  const importLimit = limitBody(config.IMPORT_BODY_LIMIT, { webRequest: true })
  // an upload's form around its package: the handler streams it (src/http/multipart.ts)
  const firmwareLimit = limitBody(config.FIRMWARE_MAX_BYTES + 64 * 1024)
  const limitOf = (path: string) =>
    path === '/api/v1/devices_import'
      ? importLimit
      : path === '/api/v1/ingest'
        ? ingestLimit
        : path === '/api/v1/firmware'
          ? firmwareLimit
          : apiLimit
  // a GET or HEAD has no body any handler reads: hono's limit would still read `c.req.raw.body`, which makes
  // @hono/node-server build a whole Request (headers, AbortSignal) for every read of the API
  return (c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitOf(c.req.path)(c, next)
}

/** Builds the HTTP application over its dependencies; nothing here listens or opens files. */
export function createApp(deps: Deps, shapes: WireShapes = wireShapes(deps.config.API_VARIANT)) {
  const app = new Hono<AppEnv>()
  const routers = allRoutes(deps, shapes)
  const defs = routers.flatMap((r) => r.defs)
  const notAllowed = methodNotAllowed(defs)
  let openapi: Record<string, unknown> | undefined
  const document = () => (openapi ??= buildOpenApi(defs, VERSION, deps.config.API_VARIANT))

  app.use('*', observeRequests(deps.metrics, deps.logger))
  app.use('*', securityHeaders)
  app.use('*', requestContext(deps.config))
  // browsers may call the API only from the listed origins; without any, no CORS headers at all
  if (deps.config.CORS_ORIGINS.length)
    app.use(
      '/api/v1/*',
      cors({
        origin: deps.config.CORS_ORIGINS,
        allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
        exposeHeaders: ['Retry-After', 'X-Request-Id'],
        maxAge: 600,
      }),
    )
  app.use('/api/v1/*', bodyLimits(deps.config))
  app.use('/api/v1/*', authMiddleware(deps.auth))

  app.get('/api/v1/openapi.json', (c) => c.json(document()))
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', DOCS_CSP)
    return c.html(renderDocs(document()))
  })
  app.get('/health', (c) => c.json({ status: 'ok', version: VERSION }))
  app.route('/', healthRoutes(deps))
  app.route('/', metricsRoutes(deps))
  for (const r of routers) app.route('/api/v1', r.app)
  const web = consoleAssets({
    timezone: deps.config.TIMEZONE,
    apiVariant: deps.config.API_VARIANT,
    mapTiles: deps.config.MAP_TILE_URL,
    mapAttribution: tileAttribution(deps.config.MAP_TILE_URL, deps.config.MAP_TILE_ATTRIBUTION),
  })
  app.get('/console/*', async (c, next) => (await web.file(c, c.req.path.slice(9))) ?? next())

  // a browser loading a console path (a deep link, a reload) gets the console; anything else the JSON 404
  app.notFound((c) =>
    wantsConsolePage(c)
      ? web.page(c)
      : (notAllowed(c) ??
        send(c, new ApiError('DATA_NOT_FOUND', { url: `no such path: ${c.req.path}` }))),
  )

  const log = deps.logger.child({ component: 'http' })
  app.onError((err, c) => {
    // `/alert_rules/test` reached `PUT /alert_rules/:id`: a path another method serves is a 405, not a 404
    if (err instanceof NotARecordId) return notAllowed(c) ?? send(c, err)
    const e = toApiError(err)
    if (e.status >= 500 && !(err instanceof Unavailable))
      log.error(
        { err, requestId: c.get('requestId'), method: c.req.method, route: routeOf(c) },
        'request failed',
      )
    return send(c, e)
  })

  return { app, defs, routers, document }
}
