/**
 * The groupSeries cases of the telemetry contract (test/store/telemetry.contract.ts runs them on every store): one
 * data point of a group's devices per window, checked against the min, mean, max and count computed here from the
 * values written, over two groups of one tenant, a second tenant using the same deviceIDs, windows that cross the
 * rollups' minute, hour and day boundaries (ranges starting and ending mid-minute), fresh values, settled ones
 * (rollups built) and a late value inside a rolled-up hour.
 *
 * A member without values in the range is answered with empty arrays (never left out), so a chart's legend can
 * list every member shown.
 */
import { randomUUID } from 'node:crypto'
import type { Test } from 'uvu'
import * as assert from 'uvu/assert'
import type { GroupRange, GroupSeries, TelemetryStore } from '../../store/telemetry.ts'
import { windowBounds } from '../../store/windows.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Two days ago on an hour boundary, as the contract's BASE. */
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 2 * DAY
const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`

/** Values written: device → [time, value] ascending. */
type Written = Map<string, Array<[number, number]>>

/** What groupSeries must answer for `r`, computed from the values written (whole numbers: sums are exact). */
export function expectedGroup(written: Written, r: GroupRange, every: string, tz: string) {
  const bounds = windowBounds(r.start, r.end, every, tz)
  const n = bounds.length - 1
  // the last window starting at or before t (bisection)
  const win = (t: number) => {
    let [lo, hi] = [0, n]
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (bounds[mid]! <= t) lo = mid
      else hi = mid
    }
    return lo
  }
  const group = Array.from({ length: n }, () => ({
    min: Infinity,
    max: -Infinity,
    sum: 0,
    count: 0,
  }))
  const devices = new Map<string, { time: number[]; value: number[] }>()
  for (const d of r.deviceIDs) {
    const mine = Array.from({ length: n }, () => ({ sum: 0, count: 0 }))
    for (const [t, v] of written.get(d) ?? []) {
      if (t < r.start || t >= r.end) continue
      const w = win(t)
      const g = group[w]!
      g.min = Math.min(g.min, v)
      g.max = Math.max(g.max, v)
      g.sum += v
      g.count++
      mine[w]!.sum += v
      mine[w]!.count++
    }
    if (r.shown.includes(d)) {
      const s = { time: [] as number[], value: [] as number[] }
      mine.forEach((m, w) => {
        if (!m.count) return
        s.time.push(bounds[w]!)
        s.value.push(m.sum / m.count)
      })
      devices.set(d, s)
    }
  }
  const out: Omit<GroupSeries, 'resolution'> = {
    devices: new Map(r.shown.map((d) => [d, devices.get(d) ?? { time: [], value: [] }])),
    group: { time: [], min: [], mean: [], max: [], count: [] },
  }
  group.forEach((g, w) => {
    if (!g.count) return
    out.group.time.push(bounds[w]!)
    out.group.min.push(g.min)
    out.group.mean.push(g.sum / g.count)
    out.group.max.push(g.max)
    out.group.count.push(g.count)
  })
  return out
}

const comparable = (s: Omit<GroupSeries, 'resolution'>) => ({
  devices: Object.fromEntries(s.devices),
  group: s.group,
})

/** Registers the groupSeries cases on the contract's suite. */
export function groupCases(test: Test, store: () => TelemetryStore, settle: () => Promise<void>) {
  const written: Written = new Map()
  /** Writes rows of `dp` for device `d` of tenant `t` ([time, value]), remembering those of `x` under `key`. */
  const write = async (
    t: string,
    d: string,
    dp: string,
    rows: Array<[number, number]>,
    key?: string,
  ) => {
    await store().write(
      rows.map(([time, value]) => ({
        tenantID: t,
        productID: 'p1',
        deviceID: d,
        dataPointID: dp,
        time,
        value,
      })),
    )
    if (key)
      written.set(
        key,
        [...(written.get(key) ?? []), ...rows].sort((a, b) => a[0] - b[0]),
      )
  }

  test('groupSeries :: members and the group band equal what the written values give, across rollup boundaries, fresh, settled and after a late write', async () => {
    const [t, other] = [uid('t'), uid('t')]
    const [a1, a2, a3, quiet, b1, b2] = ['a1', 'a2', 'a3', 'quiet', 'b1', 'b2'].map(uid)
    const from = BASE - 12 * HOUR
    const series = (step: number, seed: number) =>
      Array.from(
        { length: Math.floor((48 * HOUR) / step) },
        (_, i) => [from + 1_000 + i * step, ((i * seed) % 1000) - 500] as [number, number],
      )
    // group A: a1, a2 (every 37 s and 53 s), a3 (only its first 6 hours), quiet (no values at all)
    await write(t, a1!, 'x', series(37_000, 7919), a1)
    await write(t, a2!, 'x', series(53_000, 104_729), a2)
    await write(
      t,
      a3!,
      'x',
      series(37_000, 31).filter(([time]) => time < from + 6 * HOUR),
      a3,
    )
    // group B of the same tenant, another data point of group A's devices, and tenant `other` using a1's deviceID
    await write(t, b1!, 'x', series(61_000, 17), b1)
    await write(t, b2!, 'x', series(59_000, 13), b2)
    await write(t, a1!, 'y', series(41_000, 3))
    await write(
      other,
      a1!,
      'x',
      series(43_000, 11).map(([time]) => [time, 100_000] as [number, number]),
    )
    const groupA = [a1!, a2!, a3!, quiet!]
    const groupB = [b1!, b2!]
    const ranges = [
      [from, from + 48 * HOUR],
      [from + 12_345, from + 48 * HOUR - 777],
      [BASE + 5 * HOUR + 30_001, BASE + 7 * HOUR + 59_999],
    ] as const
    const windows = [
      ['1m', 'UTC'],
      ['7m', 'UTC'],
      ['1h', 'UTC'],
      ['6h', 'UTC'],
      ['1d', 'UTC'],
      ['1h', 'Asia/Kolkata'],
    ] as const
    const check = async (label: string) => {
      for (const [start, end] of ranges)
        for (const [deviceIDs, shown] of [
          [groupA, [a2!, quiet!, a1!]],
          [groupB, groupB],
        ] as const)
          for (const [every, tz] of windows) {
            const r = { tenantID: t, deviceIDs, shown, dataPointID: 'x', start, end }
            const got = await store().groupSeries(r, { every, tz })
            assert.ok(['raw', '1m', '1h', '1d'].includes(got.resolution), got.resolution)
            assert.equal(
              comparable(got),
              comparable(expectedGroup(written, r, every, tz)),
              `${label}: ${every} ${tz} ${deviceIDs[0]} ${start}`,
            )
          }
    }
    await check('fresh')
    await settle()
    await check('settled')
    // once settled, a whole range of hour windows is served by rollups, not raw values
    const whole = {
      tenantID: t,
      deviceIDs: groupA,
      shown: [a1!],
      dataPointID: 'x',
      start: from,
      end: from + 48 * HOUR,
    }
    const hours = await store().groupSeries(whole, { every: '1h', tz: 'UTC' })
    assert.ok(['1h', '1d'].includes(hours.resolution), hours.resolution)
    assert.equal(hours.devices.get(a1!)!.time.length, 48)
    // a late value inside a rolled-up hour counts at once, and after settling again
    await write(t, a2!, 'x', [[BASE + 3 * HOUR + 1, 99_999]], a2)
    await check('late write')
    await settle()
    await check('late write settled')
  })

  test('groupSeries :: the quiet member has empty arrays; no member, unknown devices or an empty range answer nothing', async () => {
    const t = uid('t')
    const [d, quiet] = [uid('d'), uid('quiet')]
    await write(t, d, 'x', [
      [BASE + 1_000, 4],
      [BASE + 61_000, 8],
    ])
    const r = {
      tenantID: t,
      deviceIDs: [d, quiet],
      shown: [quiet, d],
      dataPointID: 'x',
      start: BASE,
      end: BASE + HOUR,
    }
    const got = await store().groupSeries(r, { every: '1h', tz: 'UTC' })
    assert.equal([...got.devices.keys()], [quiet, d])
    assert.equal(got.devices.get(quiet), { time: [], value: [] })
    assert.equal(got.devices.get(d), { time: [BASE], value: [6] })
    assert.equal(got.group, { time: [BASE], min: [4], mean: [6], max: [8], count: [2] })
    const none = { time: [], min: [], mean: [], max: [], count: [] }
    for (const other of [
      { ...r, deviceIDs: [], shown: [] },
      { ...r, deviceIDs: [uid('ghost')], shown: [] },
      { ...r, tenantID: uid('t') },
      { ...r, dataPointID: 'nothing' },
      { ...r, start: BASE + 2 * HOUR, end: BASE + 3 * HOUR },
    ]) {
      const empty = await store().groupSeries(other, { every: '1h', tz: 'UTC' })
      assert.equal(empty.group, none)
      for (const s of empty.devices.values()) assert.equal(s, { time: [], value: [] })
    }
  })
}
