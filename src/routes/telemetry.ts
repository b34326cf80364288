import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { wireCtx, type AppEnv } from '../http/env.ts'
import { InvalidParameter } from '../kernel/errors.ts'
import {
  MetricsData,
  MetricsDataQuery,
  OriginalData,
  OriginalDataQuery,
} from '../schemas/telemetry.ts'
import { metricWire } from '../wire/metrics.ts'
import type { Series } from '../../store/telemetry.ts'
import { parseEvery } from '../../store/windows.ts'
import { WireTimeFormatter } from '../../query/format.ts'
import { metricSpecOf, metricsData } from '../../query/metrics.ts'
import {
  readDownsampled,
  readWhole,
  selectPoints,
  streamRaw,
  type RawQuery,
} from '../../query/original.ts'
import { exportRows } from '../../query/export.ts'
import { textStream } from '../http/stream.ts'
import { Deadline } from '../../query/deadline.ts'
import { resolveRange, type RangeParams } from '../../query/range.ts'
import { groupDataRoute } from './group-data.ts'

const tag = 'Telemetry'

const RANGE_DOC = `Range: time_unit (hour, day (default), week, month: the last unit up to now), or startTime/endTime
(YYYY-MM-DD HH:MM:SS in the service's TIMEZONE, or epoch seconds/milliseconds; endTime inclusive to its second).`

/** A streamed export as a download named after `base` (characters outside [A-Za-z0-9_.-] replaced). */
function download(
  body: ReadableStream<Uint8Array>,
  format: 'csv' | 'ndjson',
  base: string,
): Response {
  const csv = format === 'csv'
  return new Response(body, {
    headers: {
      'content-type': csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="${base.replace(/[^A-Za-z0-9_.-]/g, '_')}.${format}"`,
    },
  })
}

/** What both telemetry routes do first: find the tenant's device with its points, and resolve the range. */
function queryContext(meta: Deps['meta']) {
  return {
    /** The tenant's device by deviceID with its points; an unknown or foreign deviceID is 400 naming it. */
    deviceOf: async (c: Context<AppEnv>, deviceID: string) => {
      const found = await meta.ingest.deviceWithPoints(c.get('tenant'), deviceID)
      if (!found) throw new InvalidParameter('deviceID', 'no such device')
      return found
    },
    // the query modules' errors name the parameter at fault (QueryParamError, WindowError: 400 PARAMETER_INVALID)
    rangeOf: (c: Context<AppEnv>, q: RangeParams) => resolveRange(q, c.get('tz'), Date.now()),
  }
}
type QueryContext = ReturnType<typeof queryContext>

/** GET /original_data: raw values, whole, downsampled or streamed as a download. */
function originalDataRoute(
  r: Router,
  { telemetry, config }: Deps,
  { deviceOf, rangeOf }: QueryContext,
) {
  // untyped: with format=csv or ndjson it streams a download (not JSON), and it is a hot path
  r.route(
    {
      method: 'get',
      path: '/original_data',
      tag,
      summary: "Raw values of a device's data points",
      description: `One entry per data point of the device's product, originalData.time ascending and as long as value.
${RANGE_DOC} dataPointID: a comma list narrowing the points. maxPoints: at most this many values per point, each
time bucket keeping its lowest and highest value. format=csv or ndjson streams every value (columns dataPointIntID,
dataPointID, time, timestamp (epoch ms), value) without the QUERY_MAX_POINTS limit of the JSON answer.
metricType is accepted and ignored.`,
      query: OriginalDataQuery,
      response: OriginalData,
      produces: {
        'text/csv': 'with format=csv, every value',
        'application/x-ndjson': 'with format=ndjson, every value',
      },
    },
    async (c, { query }) => {
      const { device, points: all } = await deviceOf(c, query.deviceID)
      const points = selectPoints(all, query.dataPointID)
      const range = rangeOf(c, query)
      const q: RawQuery = {
        tenantID: device.tenantID,
        deviceID: device.deviceID,
        dataPointIDs: points.map((p) => p.dataPointID),
        range,
        tz: c.get('tz'),
      }
      const fmt = new WireTimeFormatter(c.get('tz'))

      if (query.format === 'csv' || query.format === 'ndjson') {
        const rows = exportRows(
          streamRaw(telemetry, q),
          query.format,
          new Map(points.map((p) => [p.dataPointID, p])),
          fmt,
        )
        return download(textStream(rows), query.format, `${device.deviceID}-original-data`)
      }

      const budgeted = { ...q, budget: new Deadline(config.QUERY_TIMEOUT_MS) }
      const data = await (query.maxPoints === undefined
        ? readWhole(telemetry, budgeted, config.QUERY_MAX_POINTS)
        : readDownsampled(telemetry, budgeted, query.maxPoints))
      return c.json(
        points.map((p) => {
          const s: Series = data.get(p.dataPointID) ?? { time: [], value: [] }
          return {
            dataPointIntID: p.id,
            dataPointID: p.dataPointID,
            dataPointName: p.dataPointName,
            originalData: {
              time: fmt.all(s.time),
              value: s.value,
              resolution: s.resolution ?? 'raw',
            },
          }
        }),
      )
    },
  )
}

/** GET /metrics_data: formula and aggregate metrics. */
function metricsDataRoute(
  r: Router,
  { meta, telemetry, config }: Deps,
  { deviceOf, rangeOf }: QueryContext,
) {
  // untyped: query/metrics.ts types a metric's values as Series (TelemetryValue, number or string) though it
  // computes numbers, and MetricsData says number[]: typing it needs MetricSeries narrowed in query/, not a
  // pass over every value of this hot path
  r.route(
    {
      method: 'get',
      path: '/metrics_data',
      tag,
      summary: "Values of a device's metrics",
      description: `The metrics of the device's product (metricType 1 formula, 2 aggregate; both when absent), each
with metricData {time, value}. ${RANGE_DOC} Formula metrics: the formula at every time where all its inputs have a
value (maxPoints downsamples them). Aggregate metrics: max/min/mean/sum per window labelled by its start, empty
windows left out, each metric's metricData.interval naming its window: interval (1m, 5m, 1h, 1d, 1mo ...) when given,
else the metric's own aggregateInterval, else the range's default (1m for hour, 1h for day, 6h for week, 1d for month);
day and month windows follow TIMEZONE.`,
      query: MetricsDataQuery,
      response: MetricsData,
    },
    async (c, { query }) => {
      const { device, points } = await deviceOf(c, query.deviceID)
      const range = rangeOf(c, query)
      if (query.interval !== undefined && !parseEvery(query.interval))
        throw new InvalidParameter('interval', 'not a duration like 1m, 5m, 1h, 1d or 1mo')
      const rows = await meta.metrics.forProduct(
        c.get('tenant'),
        device.productIntID,
        query.metricType,
      )
      const tz = c.get('tz')
      const q = {
        tenantID: device.tenantID,
        deviceID: device.deviceID,
        productPoints: points.map((p) => p.dataPointID),
        range,
        tz,
        window: query.interval ?? range.window,
        windowParam: query.interval === undefined ? range.param : 'interval',
        maxPoints: query.maxPoints,
        limit: config.QUERY_MAX_POINTS,
        budget: new Deadline(config.QUERY_TIMEOUT_MS),
      }
      const data = await metricsData(telemetry, q, rows.map(metricSpecOf))
      const fmt = new WireTimeFormatter(tz)
      const ctx = wireCtx(c)
      return c.json(
        rows.map((m) => {
          const s = data.get(Number(m.id)) ?? { time: [], value: [] }
          return {
            ...metricWire.detail(m, ctx),
            metricData: {
              time: fmt.all(s.time),
              value: s.value,
              resolution: s.resolution ?? 'raw',
              ...(s.error === undefined ? {} : { error: s.error }),
              ...(s.interval === undefined ? {} : { interval: s.interval }),
            },
          }
        }),
      )
    },
  )
}

/** Telemetry queries (docs/telemetry-queries.md): original_data, metrics_data and group_data. */
export function telemetryRoutes(deps: Deps) {
  const r = new Router()
  const ctx = queryContext(deps.meta)
  originalDataRoute(r, deps, ctx)
  metricsDataRoute(r, deps, ctx)
  groupDataRoute(r, deps)
  return r
}
