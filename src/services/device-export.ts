import { csvLine } from '../kernel/csv.ts'
import { DEVICE_CSV_FIELDS } from '../schemas/device-transfer.ts'
import type { ReportProgress } from '../tasks.ts'
import type { ListArgs, MetaStore } from '../../store/types.ts'

const PAGE = 1000

export interface ExportOptions {
  /** Whether the file holds the devices' tokens (the caller may read secrets); the column is empty otherwise. */
  secrets: boolean
  /** How many export files the tenant keeps (the oldest go). */
  keep: number
}

/**
 * Writes the devices a list query selects as one CSV file of the task (a header row of the create fields, then a
 * row per device in id order), read a page at a time; answers the count and where the file is.
 */
export async function exportDevices(
  meta: MetaStore,
  tenant: string,
  taskID: string,
  query: ListArgs & { groupID?: string },
  report: ReportProgress,
  opts: ExportOptions,
) {
  const cell = (d: Record<string, unknown>, f: string) =>
    f === 'token' && !opts.secrets ? null : d[f]
  let csv = csvLine(DEVICE_CSV_FIELDS)
  let count = 0
  for (let page = 1; ; page++) {
    const args = { ...query, page, limit: PAGE, sort: 'id', order: 'asc' as const }
    const { items, count: total } = await meta.devices.list(tenant, args, {
      groupID: query.groupID,
    })
    for (const d of items) csv += csvLine(DEVICE_CSV_FIELDS.map((f) => cell(d, f)))
    count += items.length
    await report(total ? (100 * count) / total : 100)
    if (items.length < PAGE) break
  }
  const file = {
    name: 'devices.csv',
    contentType: 'text/csv; charset=utf-8',
    content: csv,
    secrets: opts.secrets,
  }
  await meta.tasks.putFile(tenant, taskID, file, opts.keep)
  return { count, fileUrl: `/api/v1/devices_export/${taskID}` }
}
