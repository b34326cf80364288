import { z } from 'zod'

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback)
const optionalPort = z.coerce.number().int().min(0).max(65535).optional()
const flag = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((v) => v === 'true' || v === '1')

/** Every setting of the service, read from the environment. Defaults are the ones of docs/configuration.md. */
const ConfigSchema = z.object({
  PORT: port(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  DATABASE_AUTH_TOKEN: z.string().optional(),
  /** `on`: a `file:` DATABASE_URL is written by a store worker thread and read by a reader thread. */
  DB_WORKERS: z.enum(['on', 'off']).default('on'),
  /** Reader threads of the metadata database with DB_WORKERS=on (each a read-only connection, round robin). */
  DB_READERS: z.coerce.number().int().min(1).max(16).default(1),
  INFLUX_URL: z.url().optional(),
  INFLUX_TOKEN: z.string().optional(),
  INFLUX_ORG: z.string().optional(),
  INFLUX_BUCKET: z.string().optional(),
  /** The bucket of the InfluxDB store's rollups (created when missing); default `<INFLUX_BUCKET>_rollups`. */
  INFLUX_ROLLUP_BUCKET: z.string().min(1).optional(),
  MQTT_PORT: port(1883),
  MQTT_WS_PORT: port(8083),
  MQTTS_PORT: optionalPort,
  MQTTS_CERT_FILE: z.string().optional(),
  MQTTS_KEY_FILE: z.string().optional(),
  MQTT_URL: z.string().optional(),
  MQTT_USERNAME: z.string().optional(),
  MQTT_PASSWORD: z.string().optional(),
  MQTT_SHARE_GROUP: z
    .string()
    .regex(/^[^/+#$]+$/, 'no /, +, # or $')
    .default('devicecloud'),
  EMQX_API_URL: z.url().optional(),
  EMQX_API_KEY: z.string().optional(),
  EMQX_API_SECRET: z.string().optional(),
  EMQX_HOOK_SECRET: z.string().min(16).optional(),
  ADMIN_EMAIL: z.email().default('admin@devicecloud.local'),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  JWT_SECRET: z.string().min(16).optional(),
  TIMEZONE: z.string().default('UTC').refine(isTimeZone, { message: 'not an IANA time zone' }),
  ALLOW_SIGNUP: flag,
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  IMPORT_BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** The largest firmware package an upload may hold, bytes (README "Firmware"). */
  FIRMWARE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(512 * 1024 * 1024),
  /**
   * Where firmware packages are kept (default DATA_DIR/firmware). Several nodes share one directory (a network
   * volume), so that every node serves every package.
   */
  FIRMWARE_DIR: z.string().min(1).optional(),
  /**
   * Where devices download packages from: `ota/notify`'s url is this with the firmwareID appended (a CDN in front of
   * the service). Default: the service itself, `http://<PUBLIC_HOST>:<PORT>/api/v1/ingest/firmware/`.
   */
  FIRMWARE_URL: z.url().optional(),
  INGEST_QUEUE_POINTS: z.coerce.number().int().positive().default(200_000),
  INGEST_BATCH_POINTS: z.coerce.number().int().positive().default(5_000),
  INGEST_LINGER_MS: z.coerce.number().int().min(0).max(1000).default(10),
  LAST_SEEN_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(15_000),
  INGEST_BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  QUERY_MAX_POINTS: z.coerce.number().int().positive().default(1_000_000),
  QUERY_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Seconds a command waits for its acknowledgement unless the caller gives `timeout`. */
  COMMAND_TIMEOUT: z.coerce.number().int().min(1).max(3600).default(30),
  /** At most one log row of refused MQTT connections per client id and address per this many s (0: each). */
  MQTT_REFUSAL_LOG_SECONDS: z.coerce.number().int().min(0).max(86_400).default(10),
  /** Flapping protection: this many refusals of one address within MQTT_FLAP_WINDOW_SECONDS ban it (0: off). */
  MQTT_FLAP_REFUSALS: z.coerce.number().int().min(0).max(10_000).default(20),
  MQTT_FLAP_WINDOW_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  /** How long a flapping address is refused at once, credentials unchecked (0: no ban). */
  MQTT_FLAP_BAN_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /** Largest MQTT packet (fixed header included) on every listener: a larger declared one closes the connection. */
  MQTT_MAX_PACKET_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(1024 * 1024),
  /** Concurrent connections of the embedded broker (all listeners together); beyond it a new one is closed at accept. */
  MQTT_MAX_CONNECTIONS: z.coerce.number().int().positive().default(100_000),
  /**
   * The API shape served, one for the whole service: A (the product-model shape) or B (the earlier, simpler
   * shape of devices, products, groups, logs, commands and policy bindings).
   */
  API_VARIANT: z.enum(['A', 'B']).default('A'),
  /**
   * The console map's tiles: an XYZ template (`{z}`, `{x}`, `{y}`; `{s}.` a subdomain a, b or c), or `none` (or
   * empty): no tiles, the console's built-in world outline only.
   */
  MAP_TILE_URL: z
    .string()
    .default('https://tile.openstreetmap.org/{z}/{x}/{y}.png')
    .refine(isTileTemplate, { message: 'an http(s) URL with {z}, {x} and {y}, or none' }),
  /** The tile provider's attribution the map shows; default: OpenStreetMap's for its tiles, else none. */
  MAP_TILE_ATTRIBUTION: z.string().max(300).optional(),
  /** What the broker does when a device publishes where its ACL refuses: drop it (ignore) or disconnect. */
  ACL_DENY_ACTION: z.enum(['ignore', 'disconnect']).default('ignore'),
  /** Milliseconds a client has to send a request's headers; slower connections are closed (slowloris). */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Milliseconds a client has to send a whole request, body included. Counts until the request is received, not
   * the answer: long polls and the event stream stay open longer.
   */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Host name devices use to reach this service's broker (onboarding); default HOST, or localhost. */
  PUBLIC_HOST: z.string().min(1).optional(),
  /** What devices are told: the broker's URLs as seen from outside (a load balancer, a TLS proxy). */
  PUBLIC_MQTT_URL: z.url().optional(),
  PUBLIC_MQTTS_URL: z.url().optional(),
  PUBLIC_WS_URL: z.url().optional(),
  PUBLIC_WSS_URL: z.url().optional(),
  /** Failed logins for one email from one address within LOGIN_WINDOW_SECONDS that lock further tries (0: off). */
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(0).default(5),
  LOGIN_WINDOW_SECONDS: z.coerce.number().int().positive().default(900),
  /** The first lock's length; each further lock in a row doubles it, up to an hour. */
  LOGIN_LOCK_SECONDS: z.coerce.number().int().positive().default(60),
  /**
   * Comma-separated addresses of reverse proxies in front of the service: from them, the client's address is taken
   * from X-Forwarded-For (login throttling, event IPs). None by default: the header is not trusted.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    ),
  /** Comma-separated origins allowed to call the API from a browser (CORS); none by default. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ),
  /** Device exports a tenant may have waiting or running at once; more answer 429. */
  EXPORT_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Export files kept per tenant; older ones are deleted when a new one is written. */
  EXPORT_FILES_KEPT: z.coerce.number().int().positive().default(20),
  /**
   * Whether webhooks may target loopback and private addresses (127/8, 10/8, 172.16/12, 192.168/16, 100.64/10,
   * ::1, fc00::/7). Unset: true, or false when ALLOW_SIGNUP is true. Link-local and unspecified: never.
   */
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1')),
  /** Days the event outbox (webhook deliveries, the live stream's resume) keeps events. */
  EVENT_RETENTION_DAYS: z.coerce.number().int().positive().default(7),
  /** Days raw data point values are kept (both telemetry stores); 0: forever. A product may set its own. */
  RETENTION_RAW_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
  /** Days rollups (1-minute, 1-hour, 1-day windows of data point values) are kept; 0: forever. */
  RETENTION_ROLLUP_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
  /** Days uplink events (the device event log) are kept; 0: forever. A product may set its own. */
  RETENTION_EVENTS_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  /** Days connection logs and finished control logs are kept; 0: forever. */
  RETENTION_LOGS_DAYS: z.coerce.number().int().min(0).max(36_500).default(90),
  /** Days the audit log keeps its rows; 0: forever. */
  RETENTION_AUDIT_DAYS: z.coerce.number().int().min(0).max(36_500).default(365),
  /** Below this many MiB free under DATA_DIR, ingest refuses new data and readiness fails; 0: no guard. */
  DISK_MIN_FREE_MB: z.coerce.number().int().min(0).max(10_000_000).default(1024),
  /**
   * How often uplink events older than 5 minutes move from the event log's tail into compressed blocks (once
   * across the service's processes); 0: never (the log stays a row per event).
   */
  EVENT_FOLD_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
  /** How often the retention job runs (once across the service's processes); also once shortly after start-up. */
  RETENTION_INTERVAL_SECONDS: z.coerce.number().int().min(60).max(604_800).default(3600),
  /** KiB a live-stream client may fall behind by (beyond what its socket holds) before it is sent `overflow`. */
  STREAM_CLIENT_QUEUE_KB: z.coerce.number().int().min(16).max(65_536).default(1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** json: one JSON object per line; pretty: readable lines for a terminal. */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  /** Prometheus metrics at GET /metrics; false: no metrics are kept and /metrics is 404. */
  METRICS: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16).optional(),
})

export type RawConfig = z.infer<typeof ConfigSchema>
export type Config = Omit<RawConfig, 'WEBHOOK_ALLOW_PRIVATE'> & {
  DATABASE_URL: string
  WEBHOOK_ALLOW_PRIVATE: boolean
}

function isTimeZone(zone: string): boolean {
  // the default needs no check: ICU's zone data, read by the first formatter with a timeZone, is ~6.6 MB of RSS
  if (zone === 'UTC') return true
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** `none`, or an http(s) URL naming {z}, {x} and {y}, with `{s}` (if any) as its host's first label. */
function isTileTemplate(t: string): boolean {
  if (t === 'none') return true
  if (!['{z}', '{x}', '{y}'].every((p) => t.includes(p))) return false
  if (t.includes('{s}') && !/^https?:\/\/\{s\}\.[^{}/]+\//.test(t)) return false
  try {
    return /^https?:$/.test(new URL(t.replace(/\{\w+\}/g, 'a')).protocol)
  } catch {
    return false
  }
}

/** Thrown with every bad key at once. */
export class ConfigError extends Error {}

/** The only reader of the environment. Throws one ConfigError that lists every bad key. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const input = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  )
  const parsed = ConfigSchema.safeParse(input)
  const lines = parsed.success
    ? []
    : parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`)
  if (input.INFLUX_URL && !(input.INFLUX_TOKEN && input.INFLUX_ORG && input.INFLUX_BUCKET))
    lines.push('INFLUX_URL: INFLUX_TOKEN, INFLUX_ORG and INFLUX_BUCKET are required with it')
  if (parsed.success && parsed.data.HTTP_HEADERS_TIMEOUT_MS > parsed.data.HTTP_REQUEST_TIMEOUT_MS)
    lines.push('HTTP_HEADERS_TIMEOUT_MS: at most HTTP_REQUEST_TIMEOUT_MS')
  if (input.EMQX_API_URL && !(input.EMQX_API_KEY && input.EMQX_API_SECRET))
    lines.push('EMQX_API_URL: EMQX_API_KEY and EMQX_API_SECRET are required with it')
  if (!parsed.success || lines.length)
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`)
  const c = parsed.data
  return {
    ...c,
    DATABASE_URL: c.DATABASE_URL ?? `file:${c.DATA_DIR.replace(/\/$/, '')}/devicecloud.db`,
    // set but empty: no tiles (an empty setting is otherwise its default)
    MAP_TILE_URL: env.MAP_TILE_URL === '' ? 'none' : c.MAP_TILE_URL,
    WEBHOOK_ALLOW_PRIVATE: c.WEBHOOK_ALLOW_PRIVATE ?? !c.ALLOW_SIGNUP,
  }
}
