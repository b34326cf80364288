/**
 * The embedded telemetry store's chunk encoding (store/tsdb/codec.ts, pack.ts): every value and
 * time comes back exactly, whatever the series looks like, and slowly changing readings take about a byte a value.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  KIND_F64,
  KIND_JSON,
  KIND_PACKED,
  KIND_TIMES_PACKED,
  decodeTimes,
  decodeValues,
  encodeChunk,
  lastValue,
} from '../../store/tsdb/codec.ts'
import { packInts, unpackInts } from '../../store/tsdb/pack.ts'
import type { TelemetryValue } from '../../store/telemetry.ts'

const test = suite('telemetry chunk codec')

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = seed
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const buf = (u: Uint8Array) =>
  u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer

function roundTrip(times: number[], values: TelemetryValue[]) {
  const c = encodeChunk(times, values, 0, times.length)
  assert.equal(decodeTimes(buf(c.times), c.n, c.kind), times, 'times')
  const back = decodeValues(buf(c.vals), c.n, c.kind)
  assert.equal(back, values, 'values')
  for (let i = 0; i < values.length; i++)
    if (typeof values[i] === 'number')
      assert.ok(Object.is(back[i], values[i]) || (values[i] === 0 && back[i] === 0))
  assert.equal(lastValue(buf(c.vals), c.n, c.kind), values.at(-1))
  return c
}

const T0 = Date.UTC(2026, 10, 24)

test('a 1 Hz reading with two decimals changing every second :: exact, and at most 2 bytes a value', () => {
  const r = rng(1)
  const times = Array.from({ length: 3600 }, (_, i) => T0 + i * 1000)
  let v = 2150
  const values = times.map(() => (v += Math.round((r() - 0.5) * 40)) / 100)
  const c = roundTrip(times, values)
  assert.is(c.kind, KIND_PACKED, 'values packed, times regular')
  const bytes = (c.times.length + c.vals.length) / 3600
  assert.ok(bytes <= 2, `${bytes.toFixed(2)} bytes a value`)
})

test('receipt times with jitter, integers, negatives, large numbers :: exact and packed', () => {
  const r = rng(2)
  let t = T0
  const times = Array.from({ length: 1000 }, () => (t += 1000 + Math.floor(r() * 40) - 20))
  const c = roundTrip(
    times,
    times.map((_, i) => (i % 7 === 0 ? -i * 1_000_003 : i * 3)),
  )
  assert.is(c.kind, KIND_PACKED | KIND_TIMES_PACKED)
  assert.ok(c.times.length < 1000 * 1.2, `times: ${c.times.length} bytes`)
  roundTrip([T0, T0 + 5, T0 + 7], [2 ** 51, -(2 ** 51), 0])
})

test('values that do not pack :: Float64 (many decimals, binary fractions, huge jumps), JSON (strings, booleans)', () => {
  const times = [T0, T0 + 1000, T0 + 1500, T0 + 4000]
  assert.is(roundTrip(times, [0.1 + 0.2, 1, 2, 3]).kind & 3, KIND_F64)
  assert.is(roundTrip(times, [Math.PI, Math.E, 1 / 3, 2 / 3]).kind & 3, KIND_F64)
  assert.is(roundTrip(times, [1e300, -1e300, 5e-324, 1]).kind & 3, KIND_F64)
  assert.is(
    roundTrip(times, [0, 2 ** 50, -(2 ** 50), 0]).kind & 3,
    KIND_F64,
    'jumps wider than 40 bits',
  )
  assert.is(roundTrip(times, ['a', true, 1.5, 'é"\\n']).kind & 3, KIND_JSON)
  roundTrip([T0], [42.25])
  roundTrip([T0, T0 + 1], [-0.000001, 0.000002])
})

test('random series :: every kind round-trips exactly', () => {
  const r = rng(3)
  for (let k = 0; k < 300; k++) {
    const n = 1 + Math.floor(r() * 400)
    let t = T0 - Math.floor(r() * 1e9)
    const gap = Math.floor(r() * 5000) + 1
    const jitter = r() < 0.5 ? 0 : Math.floor(r() * 3000)
    const times = Array.from({ length: n }, () => (t += gap + Math.floor(r() * jitter)))
    const decimals = Math.floor(r() * 9)
    const spread = 10 ** Math.floor(r() * 12)
    const values = times.map(() => {
      const x = (r() - 0.5) * spread
      return decimals > 7 ? x : Math.round(x * 10 ** decimals) / 10 ** decimals
    })
    roundTrip(times, values)
  }
})

test('packInts :: blocks of every width, and undefined beyond 40 bits', () => {
  const r = rng(4)
  for (const width of [0, 1, 7, 8, 9, 31, 32, 33, 40]) {
    const v = [123_456_789]
    for (let i = 1; i < 1000; i++) v.push(v[i - 1]! + Math.floor(r() * 2 ** width) - 5)
    const packed = packInts(v, [9])!
    assert.is(packed[0], 9, 'the header comes first')
    assert.equal(unpackInts(packed, v.length, 1), v)
  }
  assert.is(packInts([0, 2 ** 41, 0]), undefined)
})

test('packInts :: values that jump within a range pack as themselves, a bit narrower than their differences', () => {
  const r = rng(5)
  // uniform in [1000, 9999]: differences span 2 x 8,999 (15 bits), the values 8,999 (14 bits)
  const noise = Array.from({ length: 1280 }, () => 1000 + Math.floor(r() * 9000))
  const packed = packInts(noise)!
  assert.equal(unpackInts(packed, noise.length), noise)
  assert.ok(
    packed.length <= 4 + (1279 * 14) / 8 + 10 * 4,
    `${packed.length} bytes: 14 bits a value`,
  )
  // walks, constant runs and noise in one array: every block picks its own form and the seams read back
  const mixed: number[] = [7]
  for (let i = 1; i < 2000; i++) {
    const part = Math.floor(i / 300) % 3
    const prev = mixed[i - 1]!
    mixed.push(
      part === 0 ? prev + Math.floor(r() * 5) - 2 : part === 1 ? 42 : Math.floor(r() * 2 ** 20),
    )
  }
  assert.equal(unpackInts(packInts(mixed, [3])!, mixed.length, 1), mixed)
  // a constant block after a jump: frame of reference of width 0 repeats the minimum, differences of width 0 add it
  const steps = [
    5,
    ...Array.from({ length: 128 }, () => 900),
    ...Array.from({ length: 128 }, (_, i) => 900 + i),
  ]
  assert.equal(unpackInts(packInts(steps)!, steps.length), steps)
})

test('packInts :: bytes packed as differences only (files written before the frame of reference) read as before', () => {
  // first 10, then one block: min difference 1 (zigzag 2), width 1, bits 0 1 1 0 (differences 1 2 2 1)
  const old = Uint8Array.from([20, 2, 1, 0b0110])
  assert.equal(unpackInts(old, 5), [10, 11, 13, 15, 16])
})

test.run()
