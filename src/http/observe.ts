import { randomUUID } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { Metrics } from '../kernel/metrics.ts'
import { unredactedChild, type Logger } from '../kernel/log.ts'
import type { AppEnv } from './env.ts'

/** An incoming X-Request-Id is kept when it is a plain token; anything else gets a fresh id. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/

export const requestIdOf = (header: string | undefined) =>
  header !== undefined && SANE_ID.test(header) ? header : randomUUID()

/**
 * The route template that answered (`/api/v1/devices/:deviceIntID`), or `unmatched` when no route of the method
 * matched (404, 405). Middlewares (method ALL) do not count, so a 401 from the auth middleware still names the
 * route it guarded.
 */
export function routeOf(c: Context): string {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!
    if (r.method !== 'ALL') return r.path
  }
  return 'unmatched'
}

/**
 * The first middleware: gives each request its id (echoed in `X-Request-Id`), counts and times it by route
 * template, and writes one access log line (method, route, status, ms, request id; never the query string or
 * headers, which may carry credentials).
 */
export function observeRequests(metrics: Metrics, logger: Logger): MiddlewareHandler<AppEnv> {
  // the access line's fields are fixed and safe: no redaction pass on the hot path
  const access = unredactedChild(logger, { component: 'http' })
  const logs = access.isLevelEnabled('info')
  return async (c, next) => {
    const started = performance.now()
    const requestId = requestIdOf(c.req.header('x-request-id'))
    c.set('requestId', requestId)
    await next()
    c.res.headers.set('X-Request-Id', requestId)
    if (!metrics.enabled && !logs) return
    const seconds = (performance.now() - started) / 1000
    const route = routeOf(c)
    const { method } = c.req
    const status = c.res.status
    metrics.httpRequest(method, route, status, seconds)
    if (logs)
      access.info(
        { requestId, method, route, status, ms: Math.round(seconds * 10_000) / 10 },
        'request',
      )
  }
}
