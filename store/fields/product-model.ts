/**
 * The product model's records, declared once: data points, data streams, metrics, product resources and app
 * templates. store/libsql selects, filters, sorts and writes them from these tables, their records are
 * `RecordOf` these tables, and the HTTP side takes its list filters, labels, times and request fields from them.
 */
import { z } from 'zod'
import { created, int, productID, productName, recordID, str, times } from './table.ts'
import type { FieldTable, RecordOf, WriteOf } from './table.ts'

/** The records these tables' reads answer and the fields their writes store. */
export type DataPointRecord = RecordOf<typeof DATA_POINT_TABLE>
export type DataPointFields = WriteOf<typeof DATA_POINT_TABLE>
export type DataStreamRecord = RecordOf<typeof DATA_STREAM_TABLE>
export type DataStreamDetailRecord = RecordOf<typeof DATA_STREAM_DETAIL_TABLE>
export type DataStreamFields = WriteOf<typeof DATA_STREAM_TABLE>
export type MetricRecord = RecordOf<typeof METRIC_TABLE>
export type MetricFields = WriteOf<typeof METRIC_TABLE>
export type ProductResourceRecord = RecordOf<typeof PRODUCT_RESOURCE_TABLE>
export type ProductResourceFields = WriteOf<typeof PRODUCT_RESOURCE_TABLE>
export type AppTemplateRecord = RecordOf<typeof APP_TEMPLATE_TABLE>
export type AppTemplateFields = WriteOf<typeof APP_TEMPLATE_TABLE>

const num = z.number()

/** The record id of the product (`x` is the record's alias). */
const productIntID = { sql: 'x.product_int_id', read: int } as const

/** A record id column of the product model's (`x`), null when unbound. */
const ref = (column: string) => ({ sql: `x.${column}`, column, type: int.nullable() }) as const

/** A JSON column: stored as text (what a read answers), written from `type`. */
const json = (sql: string, column: string, type: z.ZodType) =>
  ({ sql, column, type, read: str.nullable(), json: true }) as const

/**
 * A data point (`x`) of a product (`p`): what a device's messages carry. Reads carry the product's
 * cloudProtocol for the data point rules.
 */
export const DATA_POINT_TABLE = {
  id: recordID('x'),
  productID,
  dataPointID: {
    sql: 'x.data_point_id',
    column: 'data_point_id',
    type: str,
    filter: 'text',
  },
  dataPointName: {
    sql: 'x.data_point_name',
    column: 'data_point_name',
    type: str,
    filter: 'text',
  },
  productIntID,
  productName: { ...productName, sort: true },
  cloudProtocol: { sql: 'p.cloud_protocol', read: int },
  pointDataType: {
    sql: 'x.point_data_type',
    column: 'point_data_type',
    type: int,
    label: 'pointDataType',
    filter: 'int',
  },
  dataTransType: {
    sql: 'x.data_trans_type',
    column: 'data_trans_type',
    type: int,
    label: 'dataTransType',
    filter: 'int',
  },
  unitName: { sql: 'x.unit_name', column: 'unit_name', type: str.nullable() },
  unitSymbol: { sql: 'x.unit_symbol', column: 'unit_symbol', type: str.nullable() },
  upperLimit: { sql: 'x.upper_limit', column: 'upper_limit', type: num.nullable() },
  lowerLimit: { sql: 'x.lower_limit', column: 'lower_limit', type: num.nullable() },
  dataStep: { sql: 'x.data_step', column: 'data_step', type: num.nullable() },
  binarySize: { sql: 'x.binary_size', column: 'binary_size', type: int.nullable() },
  faultValue: { sql: 'x.fault_value', column: 'fault_value', type: str.nullable() },
  isDiscard: { sql: 'x.is_discard', column: 'is_discard', type: int.nullable() },
  enum: json('x.enum', 'enum', z.array(z.unknown()).nullable()),
  isLocationType: {
    sql: 'x.is_location_type',
    column: 'is_location_type',
    type: int.nullable(),
  },
  locationType: { sql: 'x.location_type', column: 'location_type', type: int.nullable() },
  registerAddr: { sql: 'x.register_addr', column: 'register_addr', type: str.nullable() },
  detail: { sql: 'x.detail', column: 'detail', type: str.nullable() },
  ...created('x'),
} as const satisfies FieldTable

/** A data stream (`x`) of a product (`p`): the data points a topic carries. The list form. */
export const DATA_STREAM_TABLE = {
  id: recordID('x'),
  productID,
  productIntID,
  productName: { ...productName, sort: true },
  streamName: { sql: 'x.stream_name', column: 'stream_name', type: str, filter: 'text' },
  topic: { sql: 'x.topic', column: 'topic', type: str, filter: 'text' },
  streamType: {
    sql: 'x.stream_type',
    column: 'stream_type',
    type: int,
    label: 'streamType',
    filter: 'int',
  },
  streamDataType: {
    sql: 'x.stream_data_type',
    column: 'stream_data_type',
    type: int,
    label: 'streamDataType',
    filter: 'int',
  },
  detail: { sql: 'x.detail', column: 'detail', type: str.nullable() },
  userIntID: { sql: 'x.user_int_id', read: int.nullable() },
  ...times('x'),
} as const satisfies FieldTable

/** A data stream's detail: the list form plus its data points' ids and names (JSON arrays, in id order). */
export const DATA_STREAM_DETAIL_TABLE = {
  ...DATA_STREAM_TABLE,
  dataPoints: {
    sql: `(SELECT json_group_array(id) FROM (SELECT sp.data_point_int_id AS id FROM stream_points sp
    WHERE sp.stream_int_id = x.id ORDER BY sp.data_point_int_id))`,
    read: str,
    json: true,
  },
  dataPointNames: {
    sql: `(SELECT json_group_array(name) FROM (SELECT d.data_point_name AS name FROM stream_points sp
    JOIN data_points d ON d.id = sp.data_point_int_id WHERE sp.stream_int_id = x.id ORDER BY d.id))`,
    read: str,
    json: true,
  },
} as const satisfies FieldTable

/** Everything a data stream write stores, under its wire names (its point links aside). */

/** A metric (`x`) of a product (`p`) over one of its data points (`d`): a formula or an aggregate. */
export const METRIC_TABLE = {
  id: recordID('x'),
  productID,
  productIntID,
  productName: { ...productName, sort: true },
  metricName: { sql: 'x.metric_name', column: 'metric_name', type: str, filter: 'text' },
  metricType: {
    sql: 'x.metric_type',
    column: 'metric_type',
    type: int,
    label: 'metricType',
    filter: 'int',
  },
  dataPointIntID: {
    sql: 'x.data_point_int_id',
    column: 'data_point_int_id',
    type: int,
    filter: 'int',
  },
  dataPointName: { sql: 'd.data_point_name', read: str, filter: 'text' },
  /** The point's dataPointID: what the formula calls `value`. */
  dataPointID: { sql: 'd.data_point_id', read: str },
  aggregateType: {
    sql: 'x.aggregate_type',
    column: 'aggregate_type',
    type: int.nullable(),
    label: 'aggregateType',
  },
  aggregateData: {
    sql: 'x.aggregate_data',
    column: 'aggregate_data',
    type: int.nullable(),
    label: 'aggregateData',
  },
  /** An aggregate metric's own window (5m, 1h, 1d, 1mo ...); null: the range's default. */
  aggregateInterval: {
    sql: 'x.aggregate_interval',
    column: 'aggregate_interval',
    type: str.nullable(),
  },
  chartType: {
    sql: 'x.chart_type',
    column: 'chart_type',
    type: int.nullable(),
    label: 'chartType',
  },
  expressions: { sql: 'x.expressions', column: 'expressions', type: str.nullable() },
  expressionsLabel: {
    sql: 'x.expressions_label',
    column: 'expressions_label',
    type: str.nullable(),
  },
  isShow: { sql: 'x.is_show', column: 'is_show', type: int },
  productItemIntID: ref('product_item_int_id'),
  remark: { sql: 'x.remark', column: 'remark', type: str.nullable() },
  dataStreamIntID: ref('data_stream_int_id'),
  ...created('x'),
} as const satisfies FieldTable

/**
 * A product resource (`x`) of a product (`p`): a code, optionally bound to one of its data points (`d`).
 * There is no codeValue dictionary: codeValueLabel is the itemName, or the codeValue itself.
 */
export const PRODUCT_RESOURCE_TABLE = {
  id: recordID('x'),
  productID,
  codeValue: { sql: 'x.code_value', column: 'code_value', type: str, filter: 'text' },
  codeValueLabel: { sql: 'coalesce(x.item_name, x.code_value)', read: str },
  itemName: { sql: 'x.item_name', column: 'item_name', type: str.nullable(), filter: 'text' },
  dataPointIntID: { ...ref('data_point_int_id'), filter: 'int' },
  dataPointName: { sql: 'd.data_point_name', read: str.nullable() },
  productIntID,
  productName,
  productItemIntID: ref('product_item_int_id'),
  ...times('x'),
} as const satisfies FieldTable

/**
 * An app template (`x`) of a product (`p`): a control of its app (device console), bound to one of its data
 * points (`d`) and streams (`s`).
 */
export const APP_TEMPLATE_TABLE = {
  id: recordID('x'),
  productID,
  templateName: { sql: 'x.template_name', column: 'template_name', type: str, filter: 'text' },
  templateType: {
    sql: 'x.template_type',
    column: 'template_type',
    type: int,
    label: 'templateType',
    filter: 'int',
  },
  dataPointIntID: { ...ref('data_point_int_id'), filter: 'int' },
  dataStreamIntID: { ...ref('data_stream_int_id'), filter: 'int' },
  productIntID,
  productName,
  productItemIntID: ref('product_item_int_id'),
  topic: { sql: 'x.topic', column: 'topic', type: str.nullable() },
  dataPointID: { sql: 'd.data_point_id', read: str.nullable() },
  dataPointName: { sql: 'd.data_point_name', read: str.nullable() },
  dataStreamName: { sql: 's.stream_name', read: str.nullable() },
  dataTransType: { sql: 'x.data_trans_type', column: 'data_trans_type', type: int.nullable() },
  enum: json('x.enum', 'enum', z.array(z.unknown()).nullable()),
  places: json('x.places', 'places', z.tuple([int, int]).nullable()),
  instanceID: { sql: 'x.instance_id', column: 'instance_id', type: str.nullable() },
  itemID: { sql: 'x.item_id', column: 'item_id', type: str.nullable() },
  itemName: { sql: 'x.item_name', column: 'item_name', type: str.nullable() },
  itemOperations: { sql: 'x.item_operations', column: 'item_operations', type: str.nullable() },
  objectID: { sql: 'x.object_id', column: 'object_id', type: str.nullable() },
  defaultValues: json('x.default_values', 'default_values', z.array(z.unknown()).nullable()),
  ...times('x'),
} as const satisfies FieldTable

/** A data point (`x`) as a metric's formula may name it and a reference to it is checked. */
export const POINT_REF_TABLE = {
  id: recordID('x'),
  dataPointID: { sql: 'x.data_point_id', read: str },
  dataPointName: { sql: 'x.data_point_name', read: str },
  productIntID,
} as const satisfies FieldTable

/** A data stream (`x`) as a reference to it is checked. */
export const STREAM_REF_TABLE = {
  id: recordID('x'),
  streamName: { sql: 'x.stream_name', read: str },
  productIntID,
} as const satisfies FieldTable
