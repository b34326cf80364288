/**
 * What the uplink pipeline, the broker and HTTP ingest read, declared once: store/libsql/ingest-model.ts selects
 * these tables and answers their records (`RecordOf`, not parsed: these reads are on the uplink path).
 */
import { z } from 'zod'
import { int, str } from './table.ts'
import type { FieldTable, RecordOf } from './table.ts'
import { DATA_POINT_TABLE, DATA_STREAM_TABLE } from './product-model.ts'

/** A device or gateway (`d`, its product `p`): credentials, product and the parts of its mountpoint. */
export const INGEST_DEVICE_TABLE = {
  id: { sql: 'd.id', read: int },
  tenantID: { sql: 'd.tenant_id', read: str },
  kind: { sql: 'd.kind', read: z.enum(['device', 'gateway']) },
  deviceID: { sql: 'd.device_id', read: str },
  deviceName: { sql: 'd.device_name', read: str },
  deviceUsername: { sql: 'd.device_username', read: str },
  token: { sql: 'd.token', read: str },
  authType: { sql: 'd.auth_type', read: int.nullable() },
  blocked: { sql: 'd.blocked', read: int },
  productIntID: { sql: 'd.product_int_id', read: int },
  productID: { sql: 'p.product_id', read: str },
  cloudProtocol: { sql: 'p.cloud_protocol', read: int },
  gatewayIntID: { sql: 'd.gateway_int_id', read: int.nullable() },
  parentDeviceIntID: { sql: 'd.parent_device_int_id', read: int.nullable() },
} as const satisfies FieldTable

/** A device or gateway as ingest knows it. */
export type IngestDevice = RecordOf<typeof INGEST_DEVICE_TABLE>

const { id, productIntID, dataPointID, dataPointName, pointDataType } = DATA_POINT_TABLE
const { upperLimit, lowerLimit, binarySize, faultValue, unitName, unitSymbol } = DATA_POINT_TABLE

/**
 * A data point of a product (`x`), with what the value check needs: fields of the data point's table. Fault points
 * (pointDataType 4) carry the value that raises the built-in fault alert; the unit labels a latest value.
 */
export const MODEL_POINT_TABLE = {
  id,
  dataPointID,
  dataPointName,
  pointDataType,
  upperLimit,
  lowerLimit,
  binarySize,
  faultValue,
  unitName,
  unitSymbol,
} as const satisfies FieldTable

type PointRecord = RecordOf<typeof MODEL_POINT_TABLE>

/** A data point as the value check takes it: a point built in code may leave out its fault value and unit. */
type Optional = 'faultValue' | 'unitName' | 'unitSymbol'
export type ModelPoint = Omit<PointRecord, Optional> & Partial<Pick<PointRecord, Optional>>

/** A data point with its product's record id, for reading the points of several products at once. */
export const PRODUCT_POINT_TABLE = {
  productIntID,
  ...MODEL_POINT_TABLE,
} as const satisfies FieldTable

/** A data stream of a product (`x`): fields of the data stream's table. */
export const MODEL_STREAM_TABLE = {
  id: DATA_STREAM_TABLE.id,
  topic: DATA_STREAM_TABLE.topic,
  streamType: DATA_STREAM_TABLE.streamType,
} as const satisfies FieldTable

/** A data point of a data stream (`sp`): the stream's and the point's record ids. */
export const STREAM_POINT_TABLE = {
  streamIntID: { sql: 'sp.stream_int_id', read: int },
  pointIntID: { sql: 'sp.data_point_int_id', read: int },
} as const satisfies FieldTable
