/**
 * CSV and NDJSON exports of original_data (`format=csv|ndjson`): rows of raw values as text chunks,
 * produced as the store streams slices, so an export of a month at 1 Hz never sits in memory.
 * CSV: RFC 4180 with a header row, columns dataPointIntID, dataPointID, time (wire time), timestamp (epoch ms), value.
 * NDJSON: one object per row with the same fields.
 */
import type { SeriesSlice } from '../store/telemetry.ts'
import { csvCell, csvLine } from '../src/kernel/csv.ts'
import type { WireTimeFormatter } from './format.ts'

/** The data point fields an export row carries. */
export interface ExportPoint {
  id: number
  dataPointID: string
}

/** Rows per chunk of an export: small strings concatenate and encode fastest (a day in one string is 3x slower). */
const EXPORT_CHUNK_ROWS = 8192

/** CSV (RFC 4180, header row) or NDJSON rows of raw values, a chunk of rows at a time. */
export async function* exportRows(
  slices: AsyncIterable<SeriesSlice>,
  format: 'csv' | 'ndjson',
  points: Map<string, ExportPoint>,
  fmt: WireTimeFormatter,
) {
  const csv = format === 'csv'
  if (csv) yield csvLine(['dataPointIntID', 'dataPointID', 'time', 'timestamp', 'value'])
  for await (const s of slices) {
    const p = points.get(s.dataPointID)!
    const head = csv
      ? csvLine([p.id, p.dataPointID]).slice(0, -2)
      : `{"dataPointIntID":${p.id},"dataPointID":${JSON.stringify(p.dataPointID)},"time":"`
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
