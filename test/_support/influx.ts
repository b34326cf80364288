/**
 * A real InfluxDB 2.x for tests: the one INFLUX_URL/INFLUX_TOKEN/INFLUX_ORG/INFLUX_BUCKET name, else one started
 * with `scripts/influxd.sh start` when `scripts/influxd.sh path` finds a built binary (stopped when the test
 * process ends), else none. Each caller gets a fresh bucket of its own (plain fetch to /api/v2/buckets), so test
 * files never see each other's data.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'

export interface InfluxForTests {
  url: string
  token: string
  org: string
  /** A bucket created for this caller. */
  bucket: string
  /** The rollup bucket the store creates beside it (`<bucket>_rollups`, the service's default name). */
  rollupBucket: string
  /** Deletes the buckets and stops the server if this process started it. */
  stop(): Promise<void>
}

/** The settings that reach a test's bucket, as the store's options name them. */
export const bucketOf = ({ url, token, org, bucket }: InfluxForTests) => ({
  url,
  token,
  org,
  bucket,
})

const SCRIPT = join(import.meta.dirname, '../../scripts/influxd.sh')

interface Server {
  url: string
  token: string
  org: string
  stop(): void
}

function fromEnv(): Server | undefined {
  const { INFLUX_URL: url, INFLUX_TOKEN: token, INFLUX_ORG: org } = process.env
  if (!url) return undefined
  if (!token || !org)
    throw new Error('INFLUX_URL is set: INFLUX_TOKEN and INFLUX_ORG are required too')
  return { url: url.replace(/\/$/, ''), token, org, stop() {} }
}

/** Starts a local influxd when one is built; stops it on exit (also on SIGINT/SIGTERM). */
function startLocal(): Server | undefined {
  if (spawnSync('bash', [SCRIPT, 'path'], { stdio: 'ignore' }).status !== 0) return undefined
  const out = execFileSync('bash', [SCRIPT, 'start'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const env = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  )
  const pid = env.INFLUXD_PID!
  const dir = env.INFLUXD_DIR!
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    spawnSync('bash', [SCRIPT, 'stop', pid, dir], { stdio: 'ignore' })
  }
  process.once('exit', stop)
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      stop()
      process.exit(130)
    })
  return { url: env.INFLUX_URL!, token: env.INFLUX_TOKEN!, org: env.INFLUX_ORG!, stop }
}

async function api<T>(server: Server, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`InfluxDB ${method} ${path}: ${res.status} ${text}`)
  return (text ? JSON.parse(text) : undefined) as T
}

/** Creates a bucket with infinite retention in the server's org; returns its name and id. */
async function createBucket(server: Server): Promise<{ name: string; id: string }> {
  const orgs = await api<{ orgs: { id: string }[] }>(
    server,
    'GET',
    `/api/v2/orgs?org=${encodeURIComponent(server.org)}`,
  )
  const orgID = orgs.orgs[0]?.id
  if (!orgID) throw new Error(`InfluxDB org ${server.org} not found`)
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`
  const bucket = await api<{ id: string }>(server, 'POST', '/api/v2/buckets', {
    orgID,
    name,
    retentionRules: [],
  })
  return { name, id: bucket.id }
}

/** A real InfluxDB with a fresh bucket, or undefined when none is configured or built. */
export async function influxForTests(): Promise<InfluxForTests | undefined> {
  const server = fromEnv() ?? startLocal()
  if (!server) return undefined
  const bucket = await createBucket(server)
  return {
    url: server.url,
    token: server.token,
    org: server.org,
    bucket: bucket.name,
    rollupBucket: `${bucket.name}_rollups`,
    async stop() {
      await api(server, 'DELETE', `/api/v2/buckets/${bucket.id}`).catch(() => {})
      const rollups = await api<{ buckets?: Array<{ id: string }> }>(
        server,
        'GET',
        `/api/v2/buckets?name=${bucket.name}_rollups&org=${encodeURIComponent(server.org)}`,
      ).catch(() => undefined)
      for (const b of rollups?.buckets ?? [])
        await api(server, 'DELETE', `/api/v2/buckets/${b.id}`).catch(() => {})
      server.stop()
    },
  }
}

/** The line an influx test file prints when it registers no tests. */
export const INFLUX_MISSING = 'InfluxDB not available: build it with scripts/influxd.sh build'

/**
 * Runs a service-level suite on a real InfluxDB: `cases(name, env, cleanup)` gets the INFLUX_* settings of a fresh
 * bucket. Without an InfluxDB it registers nothing (and says so), except under CI, where that is a failing test.
 */
export async function onInflux(
  cases: (
    name: string,
    env: () => Promise<Record<string, string>>,
    cleanup: () => Promise<void>,
  ) => void,
): Promise<void> {
  const influx = await influxOrMissing()
  if (influx) {
    const env = {
      INFLUX_URL: influx.url,
      INFLUX_TOKEN: influx.token,
      INFLUX_ORG: influx.org,
      INFLUX_BUCKET: influx.bucket,
    }
    cases(
      'InfluxDB store',
      async () => env,
      () => influx.stop(),
    )
  }
}

/**
 * A real InfluxDB with a fresh bucket, or undefined after saying what its absence means: a failing test under CI
 * (the InfluxDB half must run there), else the INFLUX_MISSING line.
 */
export async function influxOrMissing(): Promise<InfluxForTests | undefined> {
  const influx = await influxForTests()
  if (influx) return influx
  if (process.env.CI) {
    const { test } = await import('uvu')
    const assert = await import('uvu/assert')
    test('InfluxDB in CI :: available (.ci/run builds it with scripts/influxd.sh build)', () => {
      assert.unreachable(`${INFLUX_MISSING} (CI is set, so the InfluxDB half must run)`)
    })
    test.run()
  } else console.log(INFLUX_MISSING)
  return undefined
}
