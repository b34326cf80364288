import { z } from 'zod'
import { Int, Str } from './common.ts'
import { DEVICE_TABLE } from '../../store/fields/devices.ts'
import { csvColumns } from '../../store/fields/table.ts'

const CSV = csvColumns(DEVICE_TABLE)

/** The CSV columns of devices_export, in order; devices_import reads the same header (the field table's). */
export const DEVICE_CSV_FIELDS = CSV.map(([field]) => field)

/** Columns whose CSV text is a number. */
export const DEVICE_CSV_NUMBERS = new Set(CSV.filter(([, k]) => k === 'number').map(([f]) => f))

/** Columns whose CSV text is JSON (location may also be plain text). */
export const DEVICE_CSV_JSON = new Set(CSV.filter(([, k]) => k === 'json').map(([f]) => f))

/** The 202 answer of an export or import: where to poll, and the task's id. */
export const TaskAccepted = z.object({
  statusUrl: Str.meta({ description: '/task_status/<taskID>' }),
  taskID: Str,
})

export const ImportResult = z.object({
  success: Int,
  failed: Int,
  errors: z.array(z.object({ row: Int, field: Str, message: Str })),
})

/** The multipart form of devices_import (documentation: the handler reads the form itself). */
export const DeviceImportForm = z.object({
  file: z.string().meta({
    contentMediaType: 'text/csv',
    description:
      'UTF-8 CSV: a header row of device field names (the devices_export columns), then one row per device',
  }),
})
