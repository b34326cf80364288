import type { DeviceFields, GatewayFields } from '../types.ts'
import { DEVICE_TABLE, GATEWAY_TABLE } from '../fields/devices.ts'
import { jsonFields, writeColumns } from '../fields/table.ts'

/** What devices and gateways (rows of the devices table) share: their columns and how an edit replaces them. */

/** Wire field → column of a device write (the field table's writable fields). */
export const DEVICE_COLUMNS = writeColumns(DEVICE_TABLE) as Record<keyof DeviceFields, string>

/** Wire field → column of a gateway write. */
export const GATEWAY_COLUMNS = writeColumns(GATEWAY_TABLE) as Record<keyof GatewayFields, string>

/** Fields stored as JSON text and returned parsed. */
export const JSON_FIELDS = new Set([...jsonFields(DEVICE_TABLE), ...jsonFields(GATEWAY_TABLE)])

/** The UNIQUE columns of the devices table → the Conflict they are (`nameField` names device_name). */
export const deviceUnique = (nameField: string) => ({
  device_id: 'deviceID',
  device_name: nameField,
  mod_bus_index: ['modBusIndex', 'already used by a sibling device'] as [string, string],
})

/** Every column of a write, an absent field as null: an edit replaces every stored field. */
export function everyColumn<T extends object>(cols: Record<keyof T, string>, fields: T): T {
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(cols) as Array<keyof T & string>) out[k] = fields[k] ?? null
  return out as T
}

/** A stored detail record → the fields of a write (JSON parsed), so an edit can merge its body into them. */
export function fieldsOf<T extends object>(
  cols: Record<keyof T, string>,
  record: { [K in keyof T]?: unknown },
): T {
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(cols) as Array<keyof T & string>) {
    const v = record[k] ?? null
    out[k] = JSON_FIELDS.has(k) && typeof v === 'string' ? parseJson(v) : v
  }
  return out as T
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
