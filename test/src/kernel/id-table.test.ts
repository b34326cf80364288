/**
 * IdTable (src/kernel/id-table.ts), the table of a worker's pending requests: every value comes back once
 * under its id, whatever the order ids are taken in, across growth and shrinking, wrapped probe runs and ids past
 * 2^32; an id never set, or already taken, answers undefined. Checked against a Map doing the same operations.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { IdTable } from '../../../src/kernel/id-table.ts'

const test = suite('IdTable')

/** A small deterministic generator (mulberry32), so that a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

test('set then take :: each value once, then undefined; the size follows', () => {
  const t = new IdTable<string>()
  for (let id = 1; id <= 5; id++) t.set(id, `v${id}`)
  assert.is(t.size, 5)
  assert.is(t.take(3), 'v3')
  assert.is(t.take(3), undefined)
  assert.is(t.take(99), undefined)
  // 0 is what an empty slot holds: taking it finds nothing and leaves the table as it was
  assert.is(t.take(0), undefined)
  assert.is(t.size, 4)
  assert.equal(
    [1, 2, 4, 5].map((id) => t.take(id)),
    ['v1', 'v2', 'v4', 'v5'],
  )
  assert.is(t.size, 0)
})

test('ids that share a home slot :: a run of them, taken from its middle, finds every other', () => {
  const t = new IdTable<number>()
  // 16 slots at first: 1, 17, 33 share slot 1, and 2 probes past them; taking 17 shifts 33 back, not 2 past its home
  for (const id of [1, 17, 33, 2]) t.set(id, id * 10)
  assert.is(t.take(17), 170)
  assert.is(t.take(2), 20)
  assert.is(t.take(33), 330)
  assert.is(t.take(1), 10)
  assert.is(t.size, 0)
})

test('a run that wraps past the last slot :: taking from it keeps the wrapped entries findable', () => {
  const t = new IdTable<number>()
  // 15, 31 and 47 all start at slot 15: 31 wraps to slot 0, 47 to slot 1; 16 (home 0) probes past 31 and 47
  for (const id of [15, 31, 47, 16]) t.set(id, id)
  assert.is(t.take(15), 15)
  assert.equal([t.take(16), t.take(47), t.take(31)], [16, 47, 31])
  assert.is(t.size, 0)
})

test('growth :: thousands pending at once, all found after the table doubled several times', () => {
  const t = new IdTable<number>()
  for (let id = 1; id <= 5000; id++) t.set(id, -id)
  assert.is(t.size, 5000)
  assert.is(t.capacity, 16384)
  for (let id = 5000; id >= 1; id -= 2) assert.is(t.take(id), -id)
  for (let id = 1; id <= 5000; id += 2) assert.is(t.take(id), -id)
  assert.is(t.size, 0)
  // and the burst's table does not stay: it halved as it emptied, down to the smallest that may shrink
  assert.is(t.capacity, 1024)
})

test('shrinking while half the entries are still pending :: each one found after every halving', () => {
  const t = new IdTable<number>()
  for (let id = 1; id <= 4000; id++) t.set(id, id)
  const capacity = t.capacity
  // take all but every 16th: the table halves several times with 250 entries left in it
  for (let id = 1; id <= 4000; id++) if (id % 16 !== 0) assert.is(t.take(id), id)
  assert.ok(t.capacity < capacity, `${t.capacity} slots left of ${capacity}`)
  assert.is(t.size, 250)
  for (let id = 16; id <= 4000; id += 16) assert.is(t.take(id), id)
  assert.is(t.size, 0)
})

test('ids past 2^32 and one request left behind :: a long-lived id and a million later ones', () => {
  const t = new IdTable<string>()
  const first = 2 ** 32 + 7
  t.set(first, 'slow')
  // the slot of `first` comes round again every 16 ids: later ids probe past it, never replace it
  for (let id = first + 1; id < first + 1_000_000; id++) {
    t.set(id, 'fast')
    assert.is(t.take(id), 'fast')
  }
  assert.is(t.size, 1)
  assert.is(t.take(first), 'slow')
})

test('random work against a Map :: the same answer to every take, the same size after each step', () => {
  const rnd = random(20261127)
  const t = new IdTable<number>()
  const model = new Map<number, number>()
  let next = 1
  for (let step = 0; step < 200_000; step++) {
    if (model.size === 0 || rnd() < 0.52) {
      const id = next++
      const value = Math.floor(rnd() * 1e9)
      t.set(id, value)
      model.set(id, value)
    } else {
      // mostly the oldest pending ids, sometimes any id (absent ones included)
      const keys = [...model.keys()]
      const id =
        rnd() < 0.7 ? keys[Math.floor(rnd() * Math.min(8, keys.length))]! : Math.floor(rnd() * next)
      assert.is(t.take(id), model.get(id), `step ${step}, id ${id}`)
      model.delete(id)
    }
    assert.is(t.size, model.size)
  }
  assert.equal(
    t.drain().sort((a, b) => a - b),
    [...model.values()].sort((a, b) => a - b),
  )
  assert.is(t.size, 0)
})

test('drain :: every pending value once, then an empty table that takes new ids', () => {
  const t = new IdTable<string>()
  for (let id = 1; id <= 40; id++) t.set(id, `v${id}`)
  for (let id = 1; id <= 40; id += 3) t.take(id)
  const drained = t.drain()
  assert.is(drained.length, 26)
  assert.is(new Set(drained).size, 26)
  assert.is(t.size, 0)
  assert.is(t.take(2), undefined)
  t.set(41, 'again')
  assert.is(t.take(41), 'again')
})

test.run()
