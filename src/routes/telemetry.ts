import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { wireCtx, type AppEnv } from '../http/env.ts'
import { paramInvalid } from '../errors.ts'
import { MetricsData, MetricsDataQuery, OriginalData, OriginalDataQuery } from '../schemas/telemetry.ts'
import { metricWire } from '../wire/metrics.ts'
import { IngestModelRepo, type ModelPoint } from '../../store/libsql/ingest-model.ts'
import type { Series, SeriesSlice } from '../../store/telemetry.ts'
import { parseEvery, WindowError } from '../../store/windows.ts'
import { WireTimeFormatter } from '../../query/format.ts'
import { metricsData, type MetricSpec } from '../../query/metrics.ts'
import { readDownsampled, readWhole, streamRaw, type RawQuery } from '../../query/original.ts'
import { Deadline } from '../../query/deadline.ts'
import { QueryRangeError, resolveRange, type RangeParams } from '../../query/range.ts'
import { csvCell, csvLine } from '../csv.ts'

const tag = 'Telemetry'

const RANGE_DOC = `Range: time_unit (hour, day (default), week, month: the last unit up to now), or startTime/endTime
(YYYY-MM-DD HH:MM:SS in the service's TIMEZONE, or epoch seconds/milliseconds; endTime inclusive to its second).`

/** Range and window errors of the query modules → 400 PARAMETER_INVALID naming the parameter (QueryTimeout is an Unavailable: 503). */
function translate(e: unknown, windowParam: string): never {
  if (e instanceof QueryRangeError) throw paramInvalid(e.errors)
  if (e instanceof WindowError) throw paramInvalid({ [windowParam]: e.message })
  throw e
}

/** A byte stream of the texts `parts` yields, pulled as the client reads (backpressure), cancelled with it. */
function textStream(parts: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const it = parts[Symbol.asyncIterator]()
  const enc = new TextEncoder()
  return new ReadableStream({
    async pull(ctrl) {
      try {
        const { value, done } = await it.next()
        if (done) ctrl.close()
        else ctrl.enqueue(enc.encode(value))
      } catch (e) {
        console.error('[query] export failed:', (e as Error).message)
        ctrl.error(e)
      }
    },
    async cancel() {
      await it.return?.()
    },
  })
}

/** Rows per chunk of an export: small strings concatenate and encode fastest (a day in one string is 3x slower). */
const EXPORT_CHUNK_ROWS = 8192

/** CSV (RFC 4180, header row) or NDJSON rows of raw values, a chunk of rows at a time. */
async function* exportRows(slices: AsyncIterable<SeriesSlice>, format: 'csv' | 'ndjson', points: Map<string, ModelPoint>, fmt: WireTimeFormatter) {
  const csv = format === 'csv'
  if (csv) yield csvLine(['dataPointIntID', 'dataPointID', 'time', 'timestamp', 'value'])
  for await (const s of slices) {
    const p = points.get(s.dataPointID)!
    const head = csv ? csvLine([p.id, p.dataPointID]).slice(0, -2) : `{"dataPointIntID":${p.id},"dataPointID":${JSON.stringify(p.dataPointID)},"time":"`
    for (let from = 0; from < s.time.length; from += EXPORT_CHUNK_ROWS) {
      const to = Math.min(s.time.length, from + EXPORT_CHUNK_ROWS)
      let text = ''
      for (let i = from; i < to; i++) {
        const t = s.time[i]!
        const v = s.value[i]
        text += csv
          ? `${head},${fmt.format(t)},${t},${typeof v === 'number' ? v : csvCell(v)}\r\n`
          : `${head}${fmt.format(t)}","timestamp":${t},"value":${JSON.stringify(v)}}\n`
      }
      yield text
    }
  }
}

/** Telemetry queries (issue 5, CONTRACT §6): original_data and metrics_data. */
export function telemetryRoutes({ meta, telemetry, config }: Deps) {
  const r = new Router()
  const repo = new IngestModelRepo(meta.db)

  /** The tenant's device by deviceID with its points; an unknown or foreign deviceID is 400 naming it. */
  async function deviceOf(c: Context<AppEnv>, deviceID: string) {
    const found = await repo.deviceWithPoints(c.get('tenant'), deviceID)
    if (!found) throw paramInvalid({ deviceID: 'no such device' })
    return found
  }

  function rangeOf(c: Context<AppEnv>, q: RangeParams) {
    try {
      return resolveRange(q, c.get('tz'), Date.now())
    } catch (e) {
      translate(e, 'interval')
    }
  }

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
    },
    async (c, { query }) => {
      const { device, points: all } = await deviceOf(c, query.deviceID)
      let points = all
      if (query.dataPointID !== undefined) {
        const wanted = [...new Set(query.dataPointID.split(',').map((s) => s.trim()).filter(Boolean))]
        const known = new Set(all.map((p) => p.dataPointID))
        const unknown = wanted.filter((id) => !known.has(id))
        if (unknown.length) throw paramInvalid({ dataPointID: `not a data point of the device's product: ${unknown.slice(0, 10).join(', ')}` })
        points = all.filter((p) => wanted.includes(p.dataPointID))
      }
      const range = rangeOf(c, query)
      const q: RawQuery = { tenantID: device.tenantID, deviceID: device.deviceID, dataPointIDs: points.map((p) => p.dataPointID), range }
      const fmt = new WireTimeFormatter(c.get('tz'))

      if (query.format === 'csv' || query.format === 'ndjson') {
        const byID = new Map(points.map((p) => [p.dataPointID, p]))
        const name = device.deviceID.replace(/[^A-Za-z0-9_.-]/g, '_')
        const csv = query.format === 'csv'
        return new Response(textStream(exportRows(streamRaw(telemetry, q), query.format, byID, fmt)), {
          headers: {
            'content-type': csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
            'content-disposition': `attachment; filename="${name}-original-data.${csv ? 'csv' : 'ndjson'}"`,
          },
        })
      }

      const budgeted = { ...q, budget: new Deadline(config.QUERY_TIMEOUT_MS) }
      const data = await (query.maxPoints === undefined
        ? readWhole(telemetry, budgeted, config.QUERY_MAX_POINTS)
        : readDownsampled(telemetry, budgeted, query.maxPoints)
      ).catch((e) => translate(e, 'interval'))
      return c.json(
        points.map((p) => {
          const s: Series = data.get(p.dataPointID) ?? { time: [], value: [] }
          return { dataPointIntID: p.id, dataPointID: p.dataPointID, dataPointName: p.dataPointName, originalData: { time: fmt.all(s.time), value: s.value } }
        }),
      )
    },
  )

  r.route(
    {
      method: 'get',
      path: '/metrics_data',
      tag,
      summary: "Values of a device's metrics",
      description: `The metrics of the device's product (metricType 1 formula, 2 aggregate; both when absent), each
with metricData {time, value}. ${RANGE_DOC} Formula metrics: the formula at every time where all its inputs have a
value (maxPoints downsamples them). Aggregate metrics: max/min/mean/sum per window labelled by its start, empty
windows left out; interval (1m, 5m, 1h, 1d, 1mo ...) overrides the default window (1m for hour, 1h for day, 6h for
week, 1d for month); day and month windows follow TIMEZONE.`,
      query: MetricsDataQuery,
      response: MetricsData,
    },
    async (c, { query }) => {
      const { device, points } = await deviceOf(c, query.deviceID)
      const range = rangeOf(c, query)
      if (query.interval !== undefined && !parseEvery(query.interval))
        throw paramInvalid({ interval: 'not a duration like 1m, 5m, 1h, 1d or 1mo' })
      const rows = await meta.metrics.forProduct(c.get('tenant'), device.productIntID, query.metricType)
      const specs: MetricSpec[] = rows.map((m) => ({
        id: Number(m.id),
        metricType: Number(m.metricType),
        dataPointID: String(m.dataPointID),
        expressions: (m.expressions as string | null) ?? null,
        aggregateType: m.aggregateType === null ? null : Number(m.aggregateType),
        aggregateData: m.aggregateData === null ? null : Number(m.aggregateData),
        updateAt: m.updateAt,
      }))
      const tz = c.get('tz')
      const data = await metricsData(
          telemetry,
          {
            tenantID: device.tenantID,
            deviceID: device.deviceID,
            productPoints: points.map((p) => p.dataPointID),
            range,
            tz,
            window: query.interval ?? range.window,
            maxPoints: query.maxPoints,
            limit: config.QUERY_MAX_POINTS,
            budget: new Deadline(config.QUERY_TIMEOUT_MS),
          },
          specs,
        ).catch((e) => translate(e, query.interval === undefined ? range.param : 'interval'))
      const fmt = new WireTimeFormatter(tz)
      const ctx = wireCtx(c)
      return c.json(
        rows.map((m) => {
          const s = data.get(Number(m.id)) ?? { time: [], value: [] }
          return { ...metricWire.detail(m, ctx), metricData: { time: fmt.all(s.time), value: s.value } }
        }),
      )
    },
  )

  return r
}
