import type { EventBus } from '../src/kernel/events.ts'
import { reportStreams, type StreamModel } from '../src/kernel/topics.ts'
import type { IngestDevice, IngestRepository, ModelPoint, ModelStream } from '../store/types.ts'

export type { StreamModel }

/** What the pipeline needs of a product: report streams by topic, data points by dataPointID. */
export interface ProductModel {
  productIntID: number
  /** Report streams (streamType 1 device data report, 3 gateway data report) by relative topic. */
  streams: Map<string, StreamModel>
  points: Map<string, ModelPoint>
}

/** How long a cached model or gateway's child list is trusted without a bus event (edits of other nodes). */
const TTL_MS = 5_000
const MAX_ENTRIES = 10_000

interface Entry<T> {
  at: number
  value: Promise<T>
  /** The value, once the read resolved. */
  settled?: T
}

/** A small TTL cache of promises (concurrent misses share one read; a failed read is not kept). */
class TtlCache<K, T> {
  private map = new Map<K, Entry<T>>()

  get(key: K, load: () => Promise<T>): Promise<T> {
    const hit = this.map.get(key)
    if (hit && Date.now() - hit.at < TTL_MS) return hit.value
    if (this.map.size >= MAX_ENTRIES) this.map.delete(this.map.keys().next().value!)
    const value = load()
    const entry: Entry<T> = { at: Date.now(), value }
    this.map.set(key, entry)
    value.then(
      (v) => (entry.settled = v),
      () => this.map.get(key) === entry && this.map.delete(key),
    )
    return value
  }

  /** The value of a fresh entry whose read has resolved (no promise to wait for); undefined otherwise. */
  peek(key: K): T | undefined {
    const hit = this.map.get(key)
    return hit && Date.now() - hit.at < TTL_MS ? hit.settled : undefined
  }

  drop(key: K) {
    this.map.delete(key)
  }

  clear() {
    this.map.clear()
  }
}

/**
 * Per-product models and per-gateway child lists, read from the metadata store and cached; dropped on the bus's
 * 'model.changed' (and 'device.changed'/'device.deleted' for child lists), and re-read after 5 s regardless.
 */
export class ModelCache {
  private products = new TtlCache<number, ProductModel>()
  private children = new TtlCache<number, Map<string, IngestDevice>>()
  private readonly onModel = (e: { productIntID: number }) => this.products.drop(e.productIntID)
  private readonly onDevice = () => this.children.clear()

  constructor(
    private repo: Pick<IngestRepository, 'productModel' | 'childrenOf'>,
    private bus?: EventBus,
  ) {
    bus?.on('model.changed', this.onModel)
    bus?.on('device.changed', this.onDevice)
    bus?.on('device.deleted', this.onDevice)
  }

  /** The model of product `productIntID` when it is cached and read (no promise: the path of every uplink). */
  cachedProduct(productIntID: number): ProductModel | undefined {
    return this.products.peek(productIntID)
  }

  /** The model of product `productIntID`. */
  product(productIntID: number): Promise<ProductModel> {
    return this.products.get(productIntID, async () =>
      buildModel(productIntID, await this.repo.productModel(productIntID)),
    )
  }

  /** The child devices of gateway `gatewayIntID` by deviceID. */
  childrenOf(gatewayIntID: number): Promise<Map<string, IngestDevice>> {
    return this.children.get(gatewayIntID, async () => {
      const list = await this.repo.childrenOf(gatewayIntID)
      return new Map(list.map((d) => [d.deviceID, d]))
    })
  }

  close() {
    this.bus?.off('model.changed', this.onModel)
    this.bus?.off('device.changed', this.onDevice)
    this.bus?.off('device.deleted', this.onDevice)
  }
}

/** Builds the lookup maps of a product model from its rows. */
export function buildModel(
  productIntID: number,
  rows: { points: ModelPoint[]; streams: ModelStream[] },
): ProductModel {
  const streams = reportStreams(rows.streams, rows.points)
  return { productIntID, streams, points: new Map(rows.points.map((p) => [p.dataPointID, p])) }
}
