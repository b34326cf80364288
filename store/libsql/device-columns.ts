import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type { DeviceFields, GatewayFields } from '../types.ts'
import { Conflict, NotFound } from '../errors.ts'
import { isUniqueViolation, uniqueColumns } from './sql-errors.ts'
import { marks } from './list.ts'
import { DEVICE_TABLE, GATEWAY_TABLE } from '../fields/devices.ts'
import { jsonFields, writeColumns } from '../fields/table.ts'

/** Wire field → column of a device write (the field table's writable fields). */
export const DEVICE_COLUMNS = writeColumns(DEVICE_TABLE) as Record<keyof DeviceFields, string>

/** Wire field → column of a gateway write. */
export const GATEWAY_COLUMNS = writeColumns(GATEWAY_TABLE) as Record<keyof GatewayFields, string>

/** Fields stored as JSON text and returned parsed. */
export const JSON_FIELDS = new Set([...jsonFields(DEVICE_TABLE), ...jsonFields(GATEWAY_TABLE)])

/** The args of a write, in the order of `cols`; JSON fields are serialized. */
export function columnValues<T extends object>(
  cols: Record<keyof T, string>,
  fields: T,
): InValue[] {
  return (Object.keys(cols) as Array<keyof T>).map((k) => {
    const v = fields[k] as unknown
    if (v === undefined || v === null) return null
    return JSON_FIELDS.has(String(k)) ? JSON.stringify(v) : (v as InValue)
  })
}

/** `INSERT INTO devices (...)` of a device or gateway write, with tenant, kind, user and creation time first. */
export function insertSql(cols: Record<string, string>): string {
  const names = Object.values(cols)
  return `INSERT INTO devices (tenant_id, kind, user_int_id, create_at, ${names.join(', ')})
    VALUES (?, ?, ?, ?, ${names.map(() => '?').join(', ')})`
}

/** `UPDATE devices SET ...` of every column of a write plus update_at; args end with tenant, kind, id. */
export function updateSql(cols: Record<string, string>): string {
  const sets = Object.values(cols).map((c) => `${c} = ?`)
  return `UPDATE devices SET ${sets.join(', ')}, update_at = ? WHERE tenant_id = ? AND kind = ? AND id = ?`
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

/** A UNIQUE violation of the devices table → the Conflict naming the wire field (`nameField` for device_name). */
export function conflictOf(e: unknown, nameField: string): Conflict | undefined {
  if (!isUniqueViolation(e)) return undefined
  const cols = uniqueColumns(e)
  if (cols.includes('devices.device_id')) return new Conflict('deviceID')
  if (cols.includes('devices.device_name')) return new Conflict(nameField)
  if (cols.includes('devices.mod_bus_index'))
    return new Conflict('modBusIndex', 'already used by a sibling device')
  return undefined
}

/** The statements deleting devices or gateways with their links, logs and alerts. */
export function deleteStatements(tenant: string, kind: 'device' | 'gateway', ids: number[]) {
  // group memberships, policy/cert bindings and subscriptions go with the device (triggers of migration 020),
  // and so do its logs and alerts (070)
  return [
    {
      sql: `DELETE FROM devices WHERE tenant_id = ? AND kind = ? AND id IN (${marks(ids.length)})`,
      args: [tenant, kind, ...ids],
    },
  ]
}

/** How one kind of row of the devices table is written: its columns and the wire name of its name field. */
export interface RowKind<T extends object> {
  kind: 'device' | 'gateway'
  columns: Record<keyof T, string>
  nameField: string
}

async function writeRow(db: Db, nameField: string, sql: string, args: InValue[]) {
  try {
    return await db.run(sql, args)
  } catch (e) {
    throw conflictOf(e, nameField) ?? e
  }
}

/** Inserts a device or gateway; Conflict names deviceID, the name field or modBusIndex. Returns its id. */
export async function insertRow<T extends object>(
  db: Db,
  k: RowKind<T>,
  tenant: string,
  userIntID: number | null,
  f: T,
) {
  const args: InValue[] = [tenant, k.kind, userIntID, Date.now(), ...columnValues(k.columns, f)]
  return (await writeRow(db, k.nameField, insertSql(k.columns), args)).lastId
}

/** Replaces every stored field of a device or gateway and sets updateAt; NotFound when not in the tenant. */
export async function updateRow<T extends object>(
  db: Db,
  k: RowKind<T>,
  tenant: string,
  id: number,
  f: T,
) {
  const args = [...columnValues(k.columns, f), Date.now(), tenant, k.kind, id]
  if ((await writeRow(db, k.nameField, updateSql(k.columns), args)).changes === 0)
    throw new NotFound()
}
