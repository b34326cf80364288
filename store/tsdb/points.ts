/**
 * What the embedded telemetry store keeps of a point, apart from the store so that the points' wire
 * (worker/points-wire.ts) checks them as it encodes them without importing the store.
 */
import type { TelemetryPoint } from '../telemetry.ts'

/** A point the store cannot keep: ids not strings, time not a finite number, value not a finite number/string/boolean. */
export function invalidPoint(p: TelemetryPoint): boolean {
  return !(
    storableValue(p?.value) &&
    Number.isFinite(p.time) &&
    typeof p.tenantID === 'string' &&
    typeof p.productID === 'string' &&
    typeof p.deviceID === 'string' &&
    typeof p.dataPointID === 'string'
  )
}

/** A value the store keeps: a finite number, a string or a boolean. */
export const storableValue = (v: unknown): boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
