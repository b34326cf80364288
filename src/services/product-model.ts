import type { DataPointCreate, DataPointUpdate } from '../schemas/data-points.ts'
import type { DataStreamCreate, DataStreamUpdate } from '../schemas/data-streams.ts'
import type { MetricCreate, MetricUpdate } from '../schemas/metrics.ts'
import type { ProductCreate, ProductUpdate } from '../schemas/products.ts'
import { dataPointErrors, type PointFields } from '../rules/data-points.ts'
import { defaultMetricType, metricErrors, type MetricFields } from '../rules/metrics.ts'
import { assertValid, productUnchanged } from '../rules/product-model.ts'
import { readEach, type Actor, type ServiceDeps } from './types.ts'

/**
 * The product model: products, their data points, data streams and metrics. Every write that changes what ingest
 * decodes announces `model.changed` after its commit; deleting a data point also deletes its stored values.
 */
export function productModelService(deps: ServiceDeps) {
  return {
    products: productWrites(deps),
    dataPoints: dataPointWrites(deps),
    dataStreams: dataStreamWrites(deps),
    metrics: metricWrites(deps),
  }
}

/** Announces `model.changed` once for each product. */
function changed(events: ServiceDeps['events'], tenantID: string, productIntIDs: Iterable<number>) {
  for (const productIntID of new Set(productIntIDs))
    events.emit('model.changed', { tenantID, productIntID })
}

const productsOf = (records: Array<{ productIntID: number }>) => records.map((r) => r.productIntID)

function productWrites({ meta, events }: ServiceDeps) {
  return {
    create: (a: Actor, body: ProductCreate) => meta.products.create(a.tenant, a.userIntID, body),
    async update(a: Actor, id: number, body: ProductUpdate) {
      const updated = await meta.products.update(a.tenant, id, body)
      changed(events, a.tenant, [id])
      return updated
    },
    /** Refused (Referenced) while devices, groups or model records use a product. */
    remove: (a: Actor, ids: number[]) => meta.products.delete(a.tenant, ids),
  }
}

function dataPointWrites({ meta, telemetry, events }: ServiceDeps) {
  return {
    async create(a: Actor, body: DataPointCreate) {
      const product = await meta.dataPoints.product(a.tenant, body.productIntID)
      assertValid(dataPointErrors(body, product.cloudProtocol))
      const created = await meta.dataPoints.create(a.tenant, a.userIntID, product.id, body)
      changed(events, a.tenant, [product.id])
      return created
    },
    async update(a: Actor, id: number, body: DataPointUpdate) {
      const current = await meta.dataPoints.get(a.tenant, id)
      const merged: PointFields = { ...current, ...body }
      assertValid({
        ...productUnchanged('productIntID', body.productIntID, current.productIntID),
        ...dataPointErrors(merged, current.cloudProtocol),
      })
      const updated = await meta.dataPoints.update(a.tenant, id, body)
      changed(events, a.tenant, [current.productIntID])
      return updated
    },
    /** Deletes the points (refused while streams or metrics use them), then every value stored for them. */
    async remove(a: Actor, ids: number[]) {
      const gone = await readEach(ids, (id) => meta.dataPoints.get(a.tenant, id))
      await meta.dataPoints.delete(a.tenant, ids)
      for (const p of gone) {
        const point = {
          tenantID: a.tenant,
          productIntID: p.productIntID,
          productID: p.productID,
          dataPointID: p.dataPointID,
        }
        await telemetry.deleteDataPoint(point.tenantID, point.productID, point.dataPointID)
        events.emit('dataPoint.deleted', point)
      }
      changed(events, a.tenant, productsOf(gone))
    },
  }
}

function dataStreamWrites({ meta, events }: ServiceDeps) {
  return {
    async create(a: Actor, body: DataStreamCreate) {
      const product = await meta.dataStreams.product(a.tenant, body)
      const created = await meta.dataStreams.create(a.tenant, a.userIntID, product, body)
      changed(events, a.tenant, [Number(created.productIntID)])
      return created
    },
    async update(a: Actor, id: number, body: DataStreamUpdate) {
      const current = await meta.dataStreams.get(a.tenant, id)
      assertValid({
        ...productUnchanged('productID', body.productID, current.productID),
        ...productUnchanged('productIntID', body.productIntID, current.productIntID),
      })
      const updated = await meta.dataStreams.update(a.tenant, id, body)
      changed(events, a.tenant, [Number(current.productIntID)])
      return updated
    },
    async remove(a: Actor, ids: number[]) {
      const gone = await readEach(ids, (id) => meta.dataStreams.get(a.tenant, id))
      await meta.dataStreams.delete(a.tenant, ids)
      changed(events, a.tenant, productsOf(gone))
    },
  }
}

/**
 * Runs the metric rules over `m` (its formula against the data points of its point's product) and returns the
 * point and the ids the formula reads. With `productIntID` (an edit), the point must stay in that product.
 */
async function checkedMetric(
  meta: ServiceDeps['meta'],
  tenant: string,
  m: MetricFields & { dataPointIntID: number },
  productIntID?: number,
) {
  const { point, points } = await meta.metrics.pointsFor(tenant, m.dataPointIntID)
  const { errors, reads } = metricErrors(m, point, points)
  if (productIntID !== undefined && point.productIntID !== productIntID)
    errors.dataPointIntID = 'must be a data point of the same product'
  assertValid(errors)
  return { point, reads }
}

function metricWrites({ meta }: ServiceDeps) {
  return {
    async create(a: Actor, body: MetricCreate) {
      const defaults = {
        metricType: defaultMetricType(body),
        aggregateData: body.aggregateData ?? 2,
        isShow: body.isShow ?? 1,
      }
      const record = { ...body, ...defaults }
      const { point, reads } = await checkedMetric(meta, a.tenant, record)
      return meta.metrics.create(a.tenant, a.userIntID, point, record, reads)
    },
    async update(a: Actor, id: number, body: MetricUpdate) {
      const current = await meta.metrics.get(a.tenant, id)
      const merged = { ...current, ...body }
      const { reads } = await checkedMetric(meta, a.tenant, merged, current.productIntID)
      return meta.metrics.update(a.tenant, id, body, reads)
    },
    remove: (a: Actor, ids: number[]) => meta.metrics.delete(a.tenant, ids),
  }
}

export type ProductModelService = ReturnType<typeof productModelService>
