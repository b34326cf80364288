import { CsvError, parseCsvRecords, unneutralise } from '../kernel/csv.ts'
import { DeviceCreate } from '../schemas/devices.ts'
import { DEVICE_CSV_JSON, DEVICE_CSV_NUMBERS } from '../schemas/device-transfer.ts'
import type { ReportProgress } from '../tasks.ts'
import { Conflict, Invalid, NotFound, issuesToErrors } from '../kernel/errors.ts'

export interface ImportError {
  row: number
  field: string
  message: string
}

/** The device records of an uploaded CSV; Invalid naming `file` when it does not parse or has no rows. */
export function importRecords(text: string): Array<Record<string, string>> {
  let records: Array<Record<string, string>>
  try {
    records = parseCsvRecords(text).records
  } catch (e) {
    if (e instanceof CsvError) throw new Invalid('file', e.message)
    throw e
  }
  if (records.length === 0) throw new Invalid('file', 'no device rows under the header')
  return records
}

/** One CSV record's text cells → the JSON body a device create would get. */
export function csvRecordToBody(rec: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const [field, cell] of Object.entries(rec)) {
    const text = unneutralise(cell) // export wrote formula-like text with a leading quote
    if (DEVICE_CSV_NUMBERS.has(field))
      body[field] = text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text
    else if (DEVICE_CSV_JSON.has(field)) body[field] = parseJsonCell(text)
    else body[field] = text
  }
  return body
}

/** JSON cells are parsed; a cell that is not JSON stays text (a plain location, or a 422 naming the field). */
function parseJsonCell(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Creates one device per CSV record, each validated exactly as POST /api/v1/devices validates (schema, field
 * rules, references, uniqueness). A failing row creates nothing and adds one error per failing field; row numbers
 * count the header as row 1.
 */
export async function importDevices(
  create: (body: DeviceCreate) => Promise<unknown>,
  records: Array<Record<string, string>>,
  report: ReportProgress,
) {
  const errors: ImportError[] = []
  let success = 0
  for (const [i, rec] of records.entries()) {
    const row = i + 2
    const rowErrors = await importOne(create, rec)
    if (rowErrors.length) errors.push(...rowErrors.map((e) => ({ row, ...e })))
    else success++
    if (i % 50 === 49 || i === records.length - 1)
      await report((100 * (i + 1)) / records.length, `row ${row}`)
  }
  return { success, failed: records.length - success, errors }
}

async function importOne(
  create: (body: DeviceCreate) => Promise<unknown>,
  rec: Record<string, string>,
) {
  const parsed = DeviceCreate.safeParse(csvRecordToBody(rec))
  if (!parsed.success) return fieldErrors(issuesToErrors(parsed.error.issues))
  try {
    await create(parsed.data)
    return []
  } catch (e) {
    // the create's refusals of this row (fields, references, uniqueness); anything else fails the task
    if (e instanceof Invalid || e instanceof NotFound || e instanceof Conflict)
      return fieldErrors(e.errors)
    throw e
  }
}

const fieldErrors = (errors: Record<string, string>) =>
  Object.entries(errors).map(([field, message]) => ({ field, message }))
