/**
 * Types of what the API answers, for tests that read a reply's body: a list page, and each resource's wire record
 * inferred from the server's own response schemas (`Wire<typeof Device>`), so a test reads the fields the API
 * documents rather than `any`.
 */
import type { z } from 'zod'

/** A record as the API sends it, from its response schema in src/schemas/ (e.g. `Wire<typeof Device>`). */
export type Wire<S extends z.ZodType> = z.output<S>

/** A list page (Variant A's paging envelope). */
export interface Page<T> {
  items: T[]
  meta: { page: number; limit: number; count: number; [k: string]: unknown }
}

/** The error shape every refusal carries. */
export interface ErrorBody {
  code: number
  error: string
  errorCode: string
  message?: string
  [k: string]: unknown
}

/** A device's descriptive fields, in the order its record and its CSV export name them (after its links). */
export const DEVICE_DETAIL_KEYS = [
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
]
