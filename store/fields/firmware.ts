/**
 * Firmware packages, declared once: store/libsql/firmware.ts selects, filters and sorts them from this table, and the
 * HTTP side takes their list filters and times from it. The bytes are a file of DATA_DIR/firmware (`file`, never on
 * the wire).
 */
import { int, recordID, str, created, productID, type FieldTable, type RecordOf } from './table.ts'

/** A firmware package of a product (`f`; its product `p`, its uploader `u`). */
export const FIRMWARE_TABLE = {
  id: recordID('f'),
  firmwareID: { sql: 'f.firmware_id', read: str, filter: 'text' },
  productID,
  productIntID: { sql: 'f.product_int_id', read: int, filter: 'int' },
  productName: { sql: 'p.product_name', read: str },
  version: { sql: 'f.version', read: str, filter: 'text', sort: true },
  size: { sql: 'f.size', read: int, sort: true },
  sha256: { sql: 'f.sha256', read: str },
  description: { sql: 'f.description', read: str.nullable() },
  ...created('f'),
} as const satisfies FieldTable

export type FirmwareRecord = RecordOf<typeof FIRMWARE_TABLE>
