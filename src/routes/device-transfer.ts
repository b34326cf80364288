import type { Deps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { csvLine, parseCsvRecords, CsvError } from '../kernel/csv.ts'
import { deviceFilters, deviceListExtra } from '../schemas/devices.ts'
import { DEVICE_CSV_FIELDS, TaskAccepted } from '../schemas/device-transfer.ts'
import { importDevices } from './device-import.ts'

const tag = 'Devices'
const PAGE = 1000

/** devices_export and devices_import (CONTRACT §7): asynchronous tasks answering 202 {statusUrl}. */
export function deviceTransferRoutes({ meta, tasks, config }: Deps) {
  const r = new Router()

  r.route(
    {
      method: 'get',
      path: '/devices_export',
      tag,
      summary: 'Export devices as CSV (a task; the file is at /devices_export/{taskID} when done)',
      query: listQuery(deviceFilters, { extra: deviceListExtra }),
      response: TaskAccepted,
      status: 202,
    },
    async (c, { query }) => {
      const tenant = c.get('tenant')
      const { taskID, statusUrl } = await tasks.start(
        tenant,
        c.get('caller').userIntID,
        'devices_export',
        async (report) => {
          let csv = csvLine(DEVICE_CSV_FIELDS)
          let count = 0
          for (let page = 1; ; page++) {
            const { items, count: total } = await meta.devices.list(
              tenant,
              { ...query, page, limit: PAGE, sort: 'id', order: 'asc' },
              {
                groupID: query.raw.groupID as string | undefined,
              },
            )
            for (const d of items) csv += csvLine(DEVICE_CSV_FIELDS.map((f) => d[f]))
            count += items.length
            await report(total ? (100 * count) / total : 100)
            if (items.length < PAGE) break
          }
          await meta.tasks.putFile(tenant, taskID, {
            name: 'devices.csv',
            contentType: 'text/csv; charset=utf-8',
            content: csv,
          })
          return { count, fileUrl: `/api/v1/devices_export/${taskID}` }
        },
      )
      return c.json({ statusUrl }, 202)
    },
  )

  r.route(
    {
      method: 'get',
      path: '/devices_export/:taskID',
      tag,
      summary: 'Download the CSV of a finished export',
    },
    async (c, { params }) => {
      const file = await meta.tasks.getFile(c.get('tenant'), params.taskID ?? '')
      return c.body(file.content, 200, {
        'content-type': file.contentType,
        'content-disposition': `attachment; filename="${file.name}"`,
      })
    },
  )

  r.route(
    {
      method: 'post',
      path: '/devices_import',
      tag,
      summary: 'Import devices from a CSV file (multipart field `file`, the devices_export shape)',
      rawBody: {
        contentType: 'multipart/form-data',
        description: '`file`: UTF-8 CSV with a header row of device field names',
      },
      response: TaskAccepted,
      status: 202,
      description: `At most ${config.IMPORT_BODY_LIMIT} bytes. The task result is {success, failed, errors: [{row, field, message}]}; row 1 is the header.`,
    },
    async (c) => {
      const text = await uploadedText(c.req.raw)
      let records: Array<Record<string, string>>
      try {
        records = parseCsvRecords(text).records
      } catch (e) {
        if (e instanceof CsvError) throw new ApiError('FORM_INVALID', { file: e.message })
        throw e
      }
      if (records.length === 0)
        throw new ApiError('FORM_INVALID', { file: 'no device rows under the header' })
      const tenant = c.get('tenant')
      const userIntID = c.get('caller').userIntID
      const { statusUrl } = await tasks.start(tenant, userIntID, 'devices_import', (report) =>
        importDevices(meta.devices, tenant, userIntID, records, report),
      )
      return c.json({ statusUrl }, 202)
    },
  )

  return r
}

/** The text of the multipart `file` field (or of a text/csv body). */
async function uploadedText(req: Request): Promise<string> {
  const type = req.headers.get('content-type') ?? ''
  if (type.startsWith('text/csv')) return req.text()
  if (!type.startsWith('multipart/form-data'))
    throw new ApiError('BAD_REQUEST', { file: 'send multipart/form-data with a `file` field' })
  let form: FormData
  try {
    form = await req.formData()
  } catch {
    throw new ApiError('BAD_REQUEST', { file: 'malformed multipart body' })
  }
  const file = form.get('file')
  if (file === null) throw new ApiError('FORM_INVALID', { file: 'required' })
  return typeof file === 'string' ? file : file.text()
}
