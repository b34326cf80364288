/**
 * The product model's records, declared once: data points, data streams, metrics, product resources and app
 * templates. store/libsql selects, filters, sorts and writes them from these tables, their records are
 * `RecordOf` these tables, and the HTTP side takes its list filters, labels, times and request fields from them.
 */
import { z } from 'zod'
import type { FieldTable, RecordOf, WriteShape } from './table.ts'

const int = z.number().int()
const num = z.number()
const str = z.string()

/** Who made a record and when (`x` is the record's alias, `u` the joined user). */
const audit = (x: string) =>
  ({
    createUser: { sql: 'u.username', read: str.nullable() },
    createAt: { sql: `${x}.create_at`, time: true, read: int },
    updateAt: { sql: `${x}.update_at`, time: true, sort: true, read: int.nullable() },
  }) as const satisfies FieldTable

/** A JSON column: stored as text (what a read answers), written from `type`. */
const json = (sql: string, column: string, type: z.ZodType) =>
  ({ sql, column, type, read: str.nullable(), json: true }) as const

/**
 * A data point (`x`) of a product (`p`): what a device's messages carry. Reads carry the product's
 * cloudProtocol for the data point rules.
 */
export const DATA_POINT_TABLE = {
  id: { sql: 'x.id', read: int },
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
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
  productIntID: { sql: 'x.product_int_id', read: int },
  productName: { sql: 'p.product_name', read: str, sort: true },
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
  ...audit('x'),
} as const satisfies FieldTable

export type DataPointRecord = RecordOf<typeof DATA_POINT_TABLE>
/** Everything a data point write stores, under its wire names. */
export type DataPointFields = z.output<z.ZodObject<WriteShape<typeof DATA_POINT_TABLE>>>

/** A data stream (`x`) of a product (`p`): the data points a topic carries. The list form. */
export const DATA_STREAM_TABLE = {
  id: { sql: 'x.id', read: int },
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
  productIntID: { sql: 'x.product_int_id', read: int },
  productName: { sql: 'p.product_name', read: str, sort: true },
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
  createAt: { sql: 'x.create_at', time: true, read: int },
  updateAt: { sql: 'x.update_at', time: true, sort: true, read: int.nullable() },
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

export type DataStreamRecord = RecordOf<typeof DATA_STREAM_TABLE>
export type DataStreamDetailRecord = RecordOf<typeof DATA_STREAM_DETAIL_TABLE>
/** Everything a data stream write stores, under its wire names (its point links aside). */
export type DataStreamFields = z.output<z.ZodObject<WriteShape<typeof DATA_STREAM_TABLE>>>

/** A metric (`x`) of a product (`p`) over one of its data points (`d`): a formula or an aggregate. */
export const METRIC_TABLE = {
  id: { sql: 'x.id', read: int },
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
  productIntID: { sql: 'x.product_int_id', read: int },
  productName: { sql: 'p.product_name', read: str, sort: true },
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
  productItemIntID: {
    sql: 'x.product_item_int_id',
    column: 'product_item_int_id',
    type: int.nullable(),
  },
  remark: { sql: 'x.remark', column: 'remark', type: str.nullable() },
  dataStreamIntID: {
    sql: 'x.data_stream_int_id',
    column: 'data_stream_int_id',
    type: int.nullable(),
  },
  ...audit('x'),
} as const satisfies FieldTable

export type MetricRecord = RecordOf<typeof METRIC_TABLE>
/** Everything a metric write stores, under its wire names. */
export type MetricFields = z.output<z.ZodObject<WriteShape<typeof METRIC_TABLE>>>

/**
 * A product resource (`x`) of a product (`p`): a code, optionally bound to one of its data points (`d`).
 * There is no codeValue dictionary: codeValueLabel is the itemName, or the codeValue itself.
 */
export const PRODUCT_RESOURCE_TABLE = {
  id: { sql: 'x.id', read: int },
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
  codeValue: { sql: 'x.code_value', column: 'code_value', type: str, filter: 'text' },
  codeValueLabel: { sql: 'coalesce(x.item_name, x.code_value)', read: str },
  itemName: { sql: 'x.item_name', column: 'item_name', type: str.nullable(), filter: 'text' },
  dataPointIntID: {
    sql: 'x.data_point_int_id',
    column: 'data_point_int_id',
    type: int.nullable(),
    filter: 'int',
  },
  dataPointName: { sql: 'd.data_point_name', read: str.nullable() },
  productIntID: { sql: 'x.product_int_id', read: int },
  productName: { sql: 'p.product_name', read: str },
  productItemIntID: {
    sql: 'x.product_item_int_id',
    column: 'product_item_int_id',
    type: int.nullable(),
  },
  createAt: { sql: 'x.create_at', time: true, read: int },
  updateAt: { sql: 'x.update_at', time: true, sort: true, read: int.nullable() },
} as const satisfies FieldTable

export type ProductResourceRecord = RecordOf<typeof PRODUCT_RESOURCE_TABLE>
/** Everything a product resource write stores, under its wire names. */
export type ProductResourceFields = z.output<z.ZodObject<WriteShape<typeof PRODUCT_RESOURCE_TABLE>>>

/**
 * An app template (`x`) of a product (`p`): a control of its app (device console), bound to one of its data
 * points (`d`) and streams (`s`).
 */
export const APP_TEMPLATE_TABLE = {
  id: { sql: 'x.id', read: int },
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
  templateName: { sql: 'x.template_name', column: 'template_name', type: str, filter: 'text' },
  templateType: {
    sql: 'x.template_type',
    column: 'template_type',
    type: int,
    label: 'templateType',
    filter: 'int',
  },
  dataPointIntID: {
    sql: 'x.data_point_int_id',
    column: 'data_point_int_id',
    type: int.nullable(),
    filter: 'int',
  },
  dataStreamIntID: {
    sql: 'x.data_stream_int_id',
    column: 'data_stream_int_id',
    type: int.nullable(),
    filter: 'int',
  },
  productIntID: { sql: 'x.product_int_id', read: int },
  productName: { sql: 'p.product_name', read: str },
  productItemIntID: {
    sql: 'x.product_item_int_id',
    column: 'product_item_int_id',
    type: int.nullable(),
  },
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
  createAt: { sql: 'x.create_at', time: true, read: int },
  updateAt: { sql: 'x.update_at', time: true, sort: true, read: int.nullable() },
} as const satisfies FieldTable

export type AppTemplateRecord = RecordOf<typeof APP_TEMPLATE_TABLE>
/** Everything an app template write stores, under its wire names. */
export type AppTemplateFields = z.output<z.ZodObject<WriteShape<typeof APP_TEMPLATE_TABLE>>>

/** A data point (`x`) as a metric's formula may name it and a reference to it is checked. */
export const POINT_REF_TABLE = {
  id: { sql: 'x.id', read: int },
  dataPointID: { sql: 'x.data_point_id', read: str },
  dataPointName: { sql: 'x.data_point_name', read: str },
  productIntID: { sql: 'x.product_int_id', read: int },
} as const satisfies FieldTable

/** A data stream (`x`) as a reference to it is checked. */
export const STREAM_REF_TABLE = {
  id: { sql: 'x.id', read: int },
  streamName: { sql: 'x.stream_name', read: str },
  productIntID: { sql: 'x.product_int_id', read: int },
} as const satisfies FieldTable
