/**
 * Values by positive integer id, for ids handed out in increasing (or cycling) order and taken back soon (a
 * worker's pending requests; the broker's commands awaiting a PUBACK, by packet identifier): open addressing with
 * linear probing over `id & mask`, kept at most half full (doubled when it would be more, halved when a large table
 * is under an eighth full), entries removed by shifting the ones after them back (no tombstones). An id is in the
 * table at most once.
 *
 * Not a `Map`: V8 links a `Map`'s old hash table to the one that replaces it when it rehashes (for iterators), and a
 * map that gains and loses an entry per request rehashes every few dozen requests. Once one of those old tables
 * had been promoted to the old generation, every later table stayed reachable from it until the next mark-compact,
 * and with them the entries they held when replaced: each pending request's promise, the async function awaiting
 * it and the whole request behind that, and the answer it was given. With a 5 KB answer, 5 KB of every request
 * reached the old generation (and 2.6 KB of every device detail served through the reader): a mark-compact every
 * second under load. Here a grown table is dropped whole and a taken slot is cleared.
 */
export class IdTable<V> {
  private ids!: Float64Array
  private values!: Array<V | undefined>
  private mask!: number
  private count!: number

  constructor() {
    this.empty(MIN_SLOTS)
  }

  get size(): number {
    return this.count
  }

  /** Slots in the table (a power of two, at least 16). */
  get capacity(): number {
    return this.ids.length
  }

  /** Adds `value` under `id` (a positive integer not already in the table). */
  set(id: number, value: V): void {
    if ((this.count + 1) * 2 > this.ids.length) this.resize(this.ids.length * 2)
    let i = id & this.mask
    while (this.ids[i] !== 0) i = (i + 1) & this.mask
    this.ids[i] = id
    this.values[i] = value
    this.count++
  }

  /** The value under `id`, removed from the table; undefined when there is none. */
  take(id: number): V | undefined {
    // 0 marks an empty slot: never an id
    if (!(id > 0)) return undefined
    const { ids, values, mask } = this
    let i = id & mask
    while (ids[i] !== id) {
      if (ids[i] === 0) return undefined
      i = (i + 1) & mask
    }
    const value = values[i]
    // shift back every entry after the hole that probed past it, so that no probe stops short of its entry
    let j = i
    for (;;) {
      j = (j + 1) & mask
      if (ids[j] === 0) break
      const home = ids[j]! & mask
      const between = i <= j ? home > i && home <= j : home > i || home <= j
      if (between) continue
      ids[i] = ids[j]!
      values[i] = values[j]
      i = j
    }
    ids[i] = 0
    values[i] = undefined
    this.count--
    // a burst's table does not stay: below an eighth full, a large table halves
    if (ids.length > SHRINK_FROM && this.count * 8 < ids.length) this.resize(ids.length / 2)
    return value
  }

  /** Every value, the table emptied. */
  drain(): V[] {
    const out: V[] = []
    for (let i = 0; i < this.ids.length; i++) if (this.ids[i] !== 0) out.push(this.values[i]!)
    this.empty(MIN_SLOTS)
    return out
  }

  /** Moves every entry into new arrays of `slots` slots (a power of two more than twice the entries). */
  private resize(slots: number) {
    const { ids, values } = this
    this.empty(slots)
    for (let i = 0; i < ids.length; i++) if (ids[i] !== 0) this.set(ids[i]!, values[i]!)
  }

  /** New, empty arrays of `slots` slots (a power of two). */
  private empty(slots: number) {
    this.ids = new Float64Array(slots)
    this.values = new Array<V | undefined>(slots).fill(undefined)
    this.mask = slots - 1
    this.count = 0
  }
}

/** The slots of a new or drained table. */
const MIN_SLOTS = 16

/** Tables of more slots than this halve when under an eighth full. */
const SHRINK_FROM = 1024
