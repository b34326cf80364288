import { z } from 'zod'
import { Int, Str } from './common.ts'

/** The CSV columns of devices_export, in order; devices_import reads the same header (CONTRACT §7). */
export const DEVICE_CSV_FIELDS = [
  'deviceName',
  'deviceID',
  'productID',
  'deviceType',
  'upLinkSystem',
  'gateway',
  'parentDevice',
  'cloudProtocol',
  'authType',
  'deviceUsername',
  'token',
  'blocked',
  'modBusIndex',
  'carrier',
  'physicalNetwork',
  'IMEI',
  'IMSI',
  'autoSub',
  'manufacturer',
  'serialNumber',
  'softVersion',
  'hardwareVersion',
  'description',
  'deviceConsoleIP',
  'deviceConsolePort',
  'deviceConsoleUsername',
  'latitude',
  'longitude',
  'location',
  'lora',
  'metaData',
  'scopes',
] as const

/** Columns whose CSV text is a number. */
export const DEVICE_CSV_NUMBERS = new Set([
  'deviceType',
  'upLinkSystem',
  'gateway',
  'parentDevice',
  'cloudProtocol',
  'authType',
  'blocked',
  'modBusIndex',
  'carrier',
  'physicalNetwork',
  'autoSub',
  'deviceConsolePort',
  'latitude',
  'longitude',
])

/** Columns whose CSV text is JSON (location may also be plain text). */
export const DEVICE_CSV_JSON = new Set(['location', 'lora', 'metaData', 'scopes'])

export const TaskAccepted = z.object({ statusUrl: Str })

export const ImportResult = z.object({
  success: Int,
  failed: Int,
  errors: z.array(z.object({ row: Int, field: Str, message: Str })),
})
