import type { FluxTableMetaData, QueryApi, ParameterizedQuery } from '@influxdata/influxdb-client'
import type { Series, TelemetryValue } from '../telemetry.ts'
import { toStoreError } from './errors.ts'
import { FIELD } from './options.ts'

/**
 * One decoded row of a `keep(columns: ["_time", "_value", "_field", "point"])` result; the `device` column (or the
 * column queryRows names) when the result keeps it too.
 */
export type RowSink = (point: string, time: number, value: TelemetryValue, device?: string) => void

/**
 * Decodes `_value` by its field: `v` float, `b` boolean, `s` string. InfluxDB writes its CSV with Go's CRLF
 * mode, which turns `\n` inside a string into `\r\n` and drops `\r`: undo the first; a `\r` is lost (README).
 */
function decode(field: string | undefined, raw: string): TelemetryValue {
  if (field === FIELD.number) return Number(raw)
  if (field === FIELD.boolean) return raw === 'true'
  return raw.includes('\r') ? raw.replace(/\r\n/g, '\n') : raw
}

/**
 * Runs the query and hands every row to `sink` without per-row promises (column indexes looked up once per
 * table); the fourth argument is the `extra` column. Rejects with Unavailable when InfluxDB is down or the
 * request times out.
 */
export function queryRows(
  api: QueryApi,
  query: ParameterizedQuery,
  sink: RowSink,
  extra = 'device',
): Promise<void> {
  return new Promise((resolve, reject) => {
    let meta: FluxTableMetaData | undefined
    let at = { time: 0, value: 0, field: 0, point: 0, device: -1 }
    api.queryRows(query, {
      next(values, tableMeta) {
        if (tableMeta !== meta) {
          meta = tableMeta
          const idx = (label: string) => tableMeta.column(label).index
          at = {
            time: idx('_time'),
            value: idx('_value'),
            field: idx('_field'),
            point: idx('point'),
            device: tableMeta.columns.findIndex((c) => c.label === extra),
          }
        }
        sink(
          values[at.point]!,
          Date.parse(values[at.time]!),
          decode(values[at.field], values[at.value]!),
          at.device < 0 ? undefined : values[at.device],
        )
      },
      error: (err) => reject(toStoreError(err, 'query', 'query')),
      complete: () => resolve(),
    })
  })
}

/** Runs the query and hands every row to `sink` as an object of its columns (small results: counts). */
export function queryRowsRaw(
  api: QueryApi,
  query: ParameterizedQuery,
  sink: (row: Record<string, string>) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    api.queryRows(query, {
      next: (values, meta) => sink(meta.toObject(values)),
      error: (err) => reject(toStoreError(err, 'query', 'query')),
      complete: () => resolve(),
    })
  })
}

/**
 * Runs the query and hands every row to `sink` as a getter of its columns by label (indexes looked up once per
 * table; a missing column reads as '').
 */
export function queryTable(
  api: QueryApi,
  query: ParameterizedQuery,
  sink: (get: (label: string) => string) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let meta: FluxTableMetaData | undefined
    let index = new Map<string, number>()
    let row: string[] = []
    const get = (label: string) => row[index.get(label) ?? -1] ?? ''
    api.queryRows(query, {
      next(values, tableMeta) {
        if (tableMeta !== meta) {
          meta = tableMeta
          index = new Map(tableMeta.columns.map((c) => [c.label, c.index]))
        }
        row = values
        sink(get)
      },
      error: (err) => reject(toStoreError(err, 'query', 'query')),
      complete: () => resolve(),
    })
  })
}

/** True when the series' times are strictly ascending (one table per point, the usual case). */
function ascending(s: Series): boolean {
  for (let i = 1; i < s.time.length; i++) if (s.time[i]! <= s.time[i - 1]!) return false
  return true
}

/**
 * Puts a series in time order with one value per time. Needed only when a point came in several tables (a
 * data point whose type changed, so it has values in two fields; or a device that moved to another product):
 * at equal times the value read last wins.
 */
export function normalize(s: Series): Series {
  if (ascending(s)) return s
  const order = s.time.map((_, i) => i).sort((a, b) => s.time[a]! - s.time[b]! || a - b)
  const out: Series = { time: [], value: [] }
  for (const i of order) {
    const n = out.time.length
    if (n > 0 && out.time[n - 1] === s.time[i]) out.value[n - 1] = s.value[i]!
    else {
      out.time.push(s.time[i]!)
      out.value.push(s.value[i]!)
    }
  }
  return out
}
