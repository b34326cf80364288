import type { ListArgs, Page } from '../list.ts'
import type { RecordOf } from '../fields/table.ts'
import type { TableRepository } from './table.ts'
import type { ProductFields, ProductRecord } from '../fields/products.ts'
import type {
  AppTemplateFields,
  AppTemplateRecord,
  DataPointFields,
  DataPointRecord,
  DataStreamDetailRecord,
  DataStreamFields,
  DataStreamRecord,
  MetricFields,
  MetricRecord,
  ProductResourceFields,
  ProductResourceRecord,
  POINT_REF_TABLE,
  STREAM_REF_TABLE,
} from '../fields/product-model.ts'

export type { ProductRecord } from '../fields/products.ts'
export type {
  AppTemplateRecord,
  DataPointRecord,
  DataStreamDetailRecord,
  DataStreamRecord,
  MetricRecord,
  ProductResourceRecord,
} from '../fields/product-model.ts'

/** The fields of a product a caller sets (store/fields/products.ts); absent ones keep their values. */
export type ProductInput = Partial<ProductFields>

/**
 * Products of a tenant. Records carry counts of their devices and model records. The protocol cannot change
 * while a product has devices (Invalid('cloudProtocol')); a delete is refused while a product still has
 * devices, groups or model records.
 */
export interface ProductRepository extends TableRepository<
  ProductRecord,
  ProductRecord,
  ProductInput
> {
  /** By the string productID; NotFound names `field`. */
  byProductID(tenant: string, productID: string, field?: string): Promise<ProductRecord>
  /** Creates a product with a generated productID; Conflict('productName'). */
  create(
    tenant: string,
    userIntID: number | null,
    p: Required<Pick<ProductInput, 'productName' | 'cloudProtocol'>> & ProductInput,
  ): Promise<ProductRecord>
}

/** A product as the product-model repositories answer it. */
export type ModelProductRef = Pick<
  ProductRecord,
  'id' | 'productID' | 'productName' | 'cloudProtocol'
>

/** A data point as a metric's formula may name it (store/fields/product-model.ts). */
export type PointRef = RecordOf<typeof POINT_REF_TABLE>

/** A data stream as a reference to it is checked. */
export type StreamRef = RecordOf<typeof STREAM_REF_TABLE>

/** The fields of a data point a caller sets (store/fields/product-model.ts); absent ones are not written. */
export type DataPointInput = Partial<DataPointFields>

/**
 * A repository of records created under one of the tenant's products (data points, product resources, app
 * templates): `key` is how a create body names the product.
 */
export interface ModelRecordRepository<R, P, K> extends TableRepository<R, R, P> {
  /** The product a new record goes to; NotFound naming its key when it is not the tenant's. */
  product(tenant: string, key: K): Promise<ModelProductRef>
  /** Creates a record of `productIntID`; what it references must be of that product; Conflict on a taken key. */
  create(tenant: string, userIntID: number | null, productIntID: number, input: P): Promise<R>
}

/**
 * Data points (functions) of the tenant's products, by productIntID. Rows carry the product's cloudProtocol for
 * the rules. A dataPointID that formula metrics read cannot change (Invalid); a delete is refused while a stream,
 * metric, product resource or app template uses one.
 */
export type DataPointRepository = ModelRecordRepository<DataPointRecord, DataPointInput, number>

/**
 * The fields of a data stream a caller sets (store/fields/product-model.ts); `dataPoints` (record ids) replaces
 * its points when given.
 */
export type DataStreamInput = Partial<DataStreamFields> & { dataPoints?: number[] }

/**
 * Data streams: topic-bound sets of data points of one product. A list answers the list form, `get` a stream
 * with its data point ids and names; an update's `dataPoints`, when given, replaces the links (same
 * transaction). A delete is refused while an app template or metric references the stream.
 */
export interface DataStreamRepository extends TableRepository<
  DataStreamRecord,
  DataStreamDetailRecord,
  DataStreamInput
> {
  /** The product of a create body: by productIntID when given, else by productID (one is required). */
  product(
    tenant: string,
    body: { productID?: string; productIntID?: number },
  ): Promise<ModelProductRef>
  /** Creates the stream and its point links in one transaction; the points must be of the same product. */
  create(
    tenant: string,
    userIntID: number | null,
    product: ModelProductRef,
    input: DataStreamInput,
  ): Promise<DataStreamDetailRecord>
}

/** The fields of a metric a caller sets (store/fields/product-model.ts); absent ones are not written. */
export type MetricInput = Partial<MetricFields>

/** Formula and aggregate metrics over the data points of a product. Nothing refers to a metric. */
export interface MetricRepository extends Omit<TableRepository<MetricRecord>, 'update'> {
  /** The tenant's metrics of a product (detail rows), by id; one metricType or all. */
  forProduct(tenant: string, productIntID: number, metricType?: number): Promise<MetricRecord[]>
  /** The metric's data point (else NotFound('dataPointIntID')) and every data point of its product. */
  pointsFor(
    tenant: string,
    dataPointIntID: number,
  ): Promise<{ point: PointRef; points: PointRef[] }>
  /** Creates a metric of `point`'s product with the links to the points its formula `reads`. */
  create(
    tenant: string,
    userIntID: number | null,
    point: PointRef,
    input: MetricInput,
    reads: number[],
  ): Promise<MetricRecord>
  /** Writes the fields of `patch` and replaces the formula links by `reads` (same transaction). */
  update(tenant: string, id: number, patch: MetricInput, reads: number[]): Promise<MetricRecord>
}

/** The fields of a product resource a caller sets (store/fields/product-model.ts); absent ones are not written. */
export type ProductResourceInput = Partial<ProductResourceFields>

/**
 * Product resources: codes of a product (by productIntID), optionally bound to one of its data points (a new
 * dataPointIntID is checked as on create). Nothing refers to one.
 */
export type ProductResourceRepository = ModelRecordRepository<
  ProductResourceRecord,
  ProductResourceInput,
  number
>

/** The fields of an app template a caller sets (store/fields/product-model.ts); absent ones are not written. */
export type AppTemplateInput = Partial<AppTemplateFields>

/**
 * App templates: controls of a product's app (by productID), bound to one of its data points and streams (a new
 * one is checked as on create). Nothing refers to one.
 */
export interface AppTemplateRepository extends ModelRecordRepository<
  AppTemplateRecord,
  AppTemplateInput,
  string
> {
  /** The templates of the product of device `deviceIntID` (a device of the tenant, else NotFound). */
  ofDevice(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<AppTemplateRecord>>
}
