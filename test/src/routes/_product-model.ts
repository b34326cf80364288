import * as assert from 'uvu/assert'
import type { Client, Reply } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import { assertRefusal } from '../../_support/asserts.ts'
import type { DataPoint } from '../../../src/schemas/data-points.ts'
import type { DataStream } from '../../../src/schemas/data-streams.ts'

/** Helpers of the product-model suites (data points, streams, metrics, resources, app templates). */

export { TIME } from '../../_support/asserts.ts'

let n = 0
/** A unique-enough suffix for names. */
export const uniq = () => `${++n}-${Date.now() % 100000}`

/** Creates a product (MQTT unless told) and returns its record. */
export async function mkProduct(
  c: Client,
  cloudProtocol = 1,
): Promise<{ id: number; productID: string; productName: string }> {
  const r = await c.post('/api/v1/products', { productName: `P-${uniq()}`, cloudProtocol })
  assert.is(r.status, 201, r.text)
  return r.body
}

/** Creates a numeric data point of the product and returns its record. */
export async function mkPoint(
  c: Client,
  productIntID: number,
  dataPointID: string,
  extra: object = {},
) {
  const r = await c.post<Wire<typeof DataPoint>>('/api/v1/data_points', {
    dataPointName: `name ${dataPointID} ${uniq()}`,
    dataPointID,
    productIntID,
    pointDataType: 1,
    dataTransType: 1,
    ...extra,
  })
  assert.is(r.status, 201, r.text)
  return r.body
}

/** Creates a data stream of the product over `dataPoints` and returns its record. */
export async function mkStream(
  c: Client,
  productID: string,
  dataPoints: number[],
  extra: object = {},
) {
  const r = await c.post<Wire<typeof DataStream>>('/api/v1/data_streams', {
    productID,
    streamName: `S-${uniq()}`,
    streamType: 1,
    streamDataType: 1,
    topic: `data/${uniq()}`,
    dataPoints,
    ...extra,
  })
  assert.is(r.status, 201, r.text)
  return r.body
}

/** Asserts an error reply: status, errorCode and exactly the named `errors` fields. */
export function assertError(r: Reply, status: number, errorCode: string, fields: string[]) {
  assertRefusal(r, status, [...fields].sort(), errorCode)
}
