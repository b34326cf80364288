import type { FieldErrors } from '../kernel/errors.ts'

/** The fields the data point rules read (a create body, or the stored record merged with an edit). */
export interface PointFields {
  pointDataType: number
  unitName?: string | null
  unitSymbol?: string | null
  upperLimit?: number | null
  lowerLimit?: number | null
  dataStep?: number | null
  faultValue?: string | null
  registerAddr?: string | null
}

const MODBUS = 7
/** Point data types every product may use. */
export const COMMON_TYPES = [1, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19]
/** Point data types of Modbus products only. */
export const MODBUS_TYPES = [21, 22, 23, 24, 25]
/** Fields that only a numeric (type 1) point may carry. */
export const NUMERIC_ONLY = [
  'unitName',
  'unitSymbol',
  'upperLimit',
  'lowerLimit',
  'dataStep',
] as const

const given = (v: unknown) => v !== undefined && v !== null && v !== ''

/** pointDataType 21 to 25 are the Modbus products' types. */
export function pointTypeForProtocol(p: PointFields, cloudProtocol: number): FieldErrors {
  const allowed = cloudProtocol === MODBUS ? [...COMMON_TYPES, ...MODBUS_TYPES] : COMMON_TYPES
  return allowed.includes(p.pointDataType)
    ? {}
    : { pointDataType: `must be one of ${allowed.join(', ')} for this product's protocol` }
}

/** faultValue is required when pointDataType is 4. */
export function faultValueRequired(p: PointFields): FieldErrors {
  return p.pointDataType === 4 && !given(p.faultValue)
    ? { faultValue: 'required when pointDataType is 4 (fault)' }
    : {}
}

/** registerAddr is required for Modbus products. */
export function registerAddrRequired(p: PointFields, cloudProtocol: number): FieldErrors {
  return cloudProtocol === MODBUS && !given(p.registerAddr)
    ? { registerAddr: 'required for Modbus products' }
    : {}
}

/** unit, limit and step fields apply to numeric type 1 only. */
export function numericOnlyFields(p: PointFields): FieldErrors {
  if (p.pointDataType === 1) return {}
  const errors: FieldErrors = {}
  for (const f of NUMERIC_ONLY)
    if (given(p[f])) errors[f] = 'only for numeric data points (pointDataType 1)'
  return errors
}

/** upperLimit/lowerLimit are a range, so lowerLimit may not exceed upperLimit. */
export function limitsOrdered(p: PointFields): FieldErrors {
  return typeof p.lowerLimit === 'number' &&
    typeof p.upperLimit === 'number' &&
    p.lowerLimit > p.upperLimit
    ? { lowerLimit: 'must not be greater than upperLimit' }
    : {}
}

/** Every data point rule; an empty object when the point is valid for a product of `cloudProtocol`. */
export function dataPointErrors(p: PointFields, cloudProtocol: number): FieldErrors {
  return {
    ...pointTypeForProtocol(p, cloudProtocol),
    ...faultValueRequired(p),
    ...registerAddrRequired(p, cloudProtocol),
    ...numericOnlyFields(p),
    ...limitsOrdered(p),
  }
}
