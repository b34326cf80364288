import { Hono } from 'hono'
import type { MetaStore } from '../../store/types.ts'
import type { TelemetryStore } from '../../store/telemetry.ts'
import type { BrokerHandle } from '../../ingest/types.ts'
import type { DiskGuard } from '../kernel/disk.ts'
import type { AppEnv } from './env.ts'

/** Whether the service takes traffic: false during start-up and from the moment close() begins. */
export interface Lifecycle {
  serving: boolean
}

/** How long one readiness check may take before it counts as failed. */
export const CHECK_TIMEOUT_MS = 2_000

export interface Check {
  status: 'ok' | 'fail'
  ms: number
  error?: string
}

async function timed(probe: () => Promise<unknown>): Promise<Check> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    )
  })
  try {
    await Promise.race([probe(), timeout])
    return { status: 'ok', ms: Math.round(performance.now() - started) }
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err)
    return { status: 'fail', ms: Math.round(performance.now() - started), error }
  } finally {
    clearTimeout(timer)
  }
}

/** What readiness probes: the part of the service's deps (src/deps.ts) these routes read. */
export interface HealthDeps {
  meta: Pick<MetaStore, 'accounts'>
  telemetry: Pick<TelemetryStore, 'ping'>
  broker: Pick<BrokerHandle, 'healthy'>
  lifecycle: Lifecycle
  disk: Pick<DiskGuard, 'full' | 'freeBytes' | 'limitBytes' | 'resumeBytes'>
}

/**
 * `GET /healthz` (liveness: the process answers) and `GET /readyz` (readiness: one entry per dependency, 503
 * while any fails or the service is starting or shutting down). Neither needs credentials.
 */
export function healthRoutes({ meta, telemetry, broker, lifecycle, disk }: HealthDeps) {
  const app = new Hono<AppEnv>()

  app.get('/healthz', (c) => c.json({ status: 'ok' }))

  app.get('/readyz', async (c) => {
    const mb = (b: number | undefined) => (b === undefined ? '?' : Math.floor(b / 1024 / 1024))
    const [metadata, store, mqtt, space] = await Promise.all([
      timed(() => meta.accounts.userCount()),
      timed(() => telemetry.ping()),
      timed(async () => {
        if (!broker.healthy()) throw new Error('broker is not serving')
      }),
      timed(async () => {
        if (!disk.full) return
        const free = disk.freeBytes ?? 0
        const resume = `ingest refuses new data until ${mb(disk.resumeBytes)} MB are free`
        throw new Error(
          free < disk.limitBytes
            ? `${mb(free)} MB free under DATA_DIR, below DISK_MIN_FREE_MB (${mb(disk.limitBytes)}): ${resume}`
            : `${mb(free)} MB free under DATA_DIR, above DISK_MIN_FREE_MB (${mb(disk.limitBytes)}) but not yet its margin: ${resume}`,
        )
      }),
    ])
    const checks = { metadata, telemetry: store, broker: mqtt, disk: space }
    const ok = lifecycle.serving && Object.values(checks).every((k) => k.status === 'ok')
    c.header('Cache-Control', 'no-store')
    return c.json(
      { status: ok ? 'ok' : 'fail', serving: lifecycle.serving, checks },
      ok ? 200 : 503,
    )
  })

  return app
}
