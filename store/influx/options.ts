import type { WriteOptions } from '@influxdata/influxdb-client'

/** What the store writes: one measurement; tags tenant, product, device, point; one field per value type. */
export const MEASUREMENT = 'telemetry'

/** Field per value type: numbers are always floats (`v`) so integer/float type conflicts cannot happen. */
export const FIELD = { number: 'v', string: 's', boolean: 'b' } as const

/** Timestamp precision of writes: the port's times are epoch milliseconds. */
export const PRECISION = 'ms'

/** HTTP request timeout (ms) of every write, query and delete: a dead InfluxDB fails calls, never hangs them. */
export const DEFAULT_TIMEOUT_MS = 10_000

/**
 * The WriteApi options, written out rather than inherited from the client's defaults. Each `write()` call (or all
 * calls of one event-loop turn) gets its own WriteApi and is flushed explicitly, so:
 * - batchSize: lines per HTTP request; larger calls are split into several requests.
 * - flushInterval 0: no timer; the store flushes each generation itself as soon as it is sealed.
 * - maxRetries 0: the caller owns retries (the ingest pipeline holds PUBACKs until commit, so a device re-sends);
 *   a failed request rejects the call at once instead of hiding its lines in the client's background retry buffer.
 *   retryJitter, minRetryDelay, maxRetryDelay, maxRetryTime and maxBufferLines are therefore inert but stated.
 * - gzipThreshold 1000: request bodies over 1 kB are gzipped (a 5,000-line batch shrinks ~10x).
 * - no defaultTags: every line carries its own tags.
 */
export const WRITE_OPTIONS = Object.freeze({
  batchSize: 5_000,
  maxBatchBytes: 8 * 1024 * 1024,
  flushInterval: 0,
  maxRetries: 0,
  maxRetryTime: 10_000,
  minRetryDelay: 500,
  maxRetryDelay: 5_000,
  exponentialBase: 2,
  randomRetry: true,
  retryJitter: 200,
  maxBufferLines: 50_000,
  gzipThreshold: 1_000,
  defaultTags: undefined,
}) satisfies Partial<WriteOptions>

/** Query options: Flux, no response gzip (the CSV decodes faster than it inflates on loopback). */
export const QUERY_GZIP = false

/**
 * Delete range bounds: "all time" for the deletes (InfluxDB times are int64 nanoseconds: 1677-09-21 to 2262-04-11),
 * the same bounds writes accept, so values before 1970 go too.
 */
export const ALL_TIME = { start: '1677-09-22T00:00:00Z', stop: '2262-01-01T00:00:00Z' } as const

/** Epoch-ms bounds InfluxDB can store (int64 nanoseconds); writes outside are refused, reads are clamped to them. */
export const TIME_LIMITS = {
  min: Date.parse(ALL_TIME.start),
  max: Date.parse(ALL_TIME.stop),
} as const

/** Read bounds of `latest`: every time a write accepts, so device clocks ahead of ours (or far behind) count. */
export const LATEST_RANGE = {
  start: new Date(TIME_LIMITS.min),
  stop: new Date(TIME_LIMITS.max),
} as const
