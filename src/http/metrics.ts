import { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { safeEqual } from '../kernel/secrets.ts'
import type { AppEnv } from './env.ts'

/**
 * `GET /metrics`: the Prometheus text exposition. With METRICS_TOKEN set it needs `Authorization: Bearer <token>`
 * (compared in constant time), else 401. Not served at all when METRICS=false.
 */
export function metricsRoutes({ metrics, config }: Pick<Deps, 'metrics' | 'config'>) {
  const app = new Hono<AppEnv>()
  if (!metrics.enabled) return app
  const token = config.METRICS_TOKEN

  app.get('/metrics', async (c) => {
    if (token !== undefined) {
      const header = c.req.header('authorization') ?? ''
      const given = header.startsWith('Bearer ') ? header.slice(7) : ''
      if (!safeEqual(given, token))
        throw new ApiError(
          'AUTH_FAILED',
          { authorization: 'a valid metrics token is required' },
          undefined,
          { 'WWW-Authenticate': 'Bearer' },
        )
    }
    c.header('Cache-Control', 'no-store')
    return c.body(await metrics.render(), 200, { 'Content-Type': metrics.contentType })
  })

  return app
}
