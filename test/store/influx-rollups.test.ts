/**
 * The InfluxDB store's rollups (store/influx/rollups.ts) against a real InfluxDB, with more than one store (and
 * one killed child process) on the same buckets: answers are exact in every store at every moment (pending hours
 * read raw), a settled mark is rolled by whichever process runs its roller, hours of one day rolled by two stores
 * at once still give the whole day, a bucket holding raw values from before rollups is backfilled, a change of
 * TIMEZONE rebuilds the hours and days, and a token that cannot create the rollup bucket leaves rollups off
 * without stopping writes. The roller's clock is injected (its settle time is 30 s).
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { InfluxTelemetryStore, type InfluxOptions } from '../../store/influx/telemetry.ts'
import { ROLL_SETTLE_MS } from '../../store/influx/rollups.ts'
import type {
  AggregateFn,
  SeriesRange,
  TelemetryPoint,
  TelemetryStore,
} from '../../store/telemetry.ts'
import { aggregateSorted, windowBounds } from '../../store/windows.ts'
import { bucketOf, influxOrMissing } from '../_support/influx.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Three days ago at a UTC midnight (hours rolled by rollUp(), which looks at every hour). */
const DAY0 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY
/**
 * A full hour about two hours ago: its hours [T0, T0 + 2 h) stay among those the roller's every pass looks at (the
 * last 3 hours of its clock, RECENT_MS in store/influx/rollups.ts) for the whole run of the file, although that
 * clock runs ahead by settleClocks (31 s a call) and by the file's run time: T0 is 2 h before the full hour of 15
 * minutes from now. (Taken from now itself, a file started in an hour's last ~95 s saw T0's hour leave that window
 * before the killed-writer case's settled passes, its one wide pass having run before the clocks settled: that
 * hour stayed pending and its day was read from hours, 1d:1h.) In an hour's last 15 minutes the second hour reaches
 * up to 15 minutes past now, which the store takes like any time.
 */
const T0 = Math.floor((Date.now() + 15 * 60_000) / HOUR) * HOUR - 2 * HOUR
/** Around T0: a whole UTC day and more. */
const aroundT0 = (tenantID: string, deviceID: string) => ({
  tenantID,
  deviceID,
  dataPointIDs: ['x', 'y'],
  start: T0 - DAY,
  end: T0 + DAY,
})

/** The UTC day DAY0. */
const dayOf = (tenantID: string, deviceID: string) => ({
  tenantID,
  deviceID,
  dataPointIDs: ['x', 'y'],
  start: DAY0,
  end: DAY0 + DAY,
})

/** The roller's clock, shared by every store of a case: `skew` moves it past the settle time. */
let skew = 0
const now = () => Date.now() + skew
const settleClocks = () => (skew += ROLL_SETTLE_MS + 1_000)

const uid = (p: string) => `${p}-${randomUUID().slice(0, 8)}`

/** Values of one device every `step` ms over [from, to): numbers that are exact in any order of sums. */
function series(
  t: string,
  d: string,
  from: number,
  to: number,
  step: number,
  product = 'p1',
): TelemetryPoint[] {
  const out: TelemetryPoint[] = []
  for (let time = from, i = 0; time < to; time += step, i++)
    out.push({
      tenantID: t,
      productID: product,
      deviceID: d,
      dataPointID: i % 3 ? 'x' : 'y',
      time,
      value: (i * 7919) % 1000,
    })
  return out
}

/** Aggregates of `store` against the reference computed from its raw values; answers their resolutions. */
async function assertExact(
  store: TelemetryStore,
  r: SeriesRange,
  tz: string,
  label: string,
): Promise<string[]> {
  const raw = await store.readRaw(r)
  const seen: string[] = []
  for (const every of ['1m', '1h', '1d'])
    for (const fn of ['max', 'sum'] as AggregateFn[]) {
      const got = await store.aggregate(r, fn, { every, tz })
      const bounds = windowBounds(r.start, r.end, every, tz)
      for (const dp of r.dataPointIDs) {
        const want = aggregateSorted(raw.get(dp)!.time, raw.get(dp)!.value, bounds, fn)
        const g = got.get(dp)!
        assert.equal({ time: g.time, value: g.value }, want, `${label}: ${fn} ${every} ${dp}`)
        seen.push(`${every}:${g.resolution ?? 'raw'}`)
      }
    }
  return seen
}

/**
 * Asserts that `store` answers `r` exactly from raw values while its hours are pending, and still after a roll
 * before they settle (its roller leaves them); then lets them settle.
 */
async function assertRawUntilSettled(store: InfluxTelemetryStore, r: SeriesRange) {
  const pending = await assertExact(store, r, 'UTC', 'pending')
  assert.ok(
    pending.every((x) => x.endsWith(':raw')),
    pending.join(' '),
  )
  await store.rollDue()
  assert.ok((await assertExact(store, r, 'UTC', 'unsettled')).every((x) => x.endsWith(':raw')))
  settleClocks()
}

const influx = await influxOrMissing()

if (influx) {
  const base: InfluxOptions = {
    ...bucketOf(influx),
    rollupBucket: influx.rollupBucket,
    timezone: 'UTC',
    now,
  }
  const t = suite('InfluxDB rollups')
  const open: InfluxTelemetryStore[] = []
  const store = async (o: Partial<InfluxOptions> = {}) => {
    const s = await InfluxTelemetryStore.open({ ...base, ...o })
    open.push(s)
    return s
  }
  t.after.each(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()))
  })
  t.after(async () => {
    // the buckets the stores created beside the usual rollup bucket
    for (const suffix of ['_backfill', '_zone']) {
      const found = (await (
        await fetch(
          `${influx.url}/api/v2/buckets?name=${influx.rollupBucket}${suffix}&org=${encodeURIComponent(influx.org)}`,
          { headers: { authorization: `Token ${influx.token}` } },
        )
      ).json()) as { buckets?: Array<{ id: string }> }
      for (const b of found.buckets ?? [])
        await fetch(`${influx.url}/api/v2/buckets/${b.id}`, {
          method: 'DELETE',
          headers: { authorization: `Token ${influx.token}` },
        })
    }
    await influx.stop()
  })

  t(
    'two processes :: what one writes answers exactly in the other, before and after the other rolls it up',
    async () => {
      const [a, b] = [await store(), await store()]
      const [tn, d] = [uid('t'), uid('d')]
      const pts = series(tn, d, T0, T0 + 2 * HOUR, 10_000)
      await a.write(pts)
      const r = aroundT0(tn, d)
      // b reads a's values at once: the hours are pending, so read raw; not settled yet, b's roller leaves them
      await assertRawUntilSettled(b, r)
      // b rolls a's two hours, or a's own roller does if it is under way (it reads the clock after an await): a
      // count of what this call rolled would race with it, so the outcome is what is checked (a's call waits for a
      // pass of its own roller under way)
      await b.rollDue()
      await a.rollDue()
      const rolled = await assertExact(b, r, 'UTC', 'rolled by b')
      // the pass folded the days of those hours after them
      assert.ok(rolled.includes('1h:1h') && rolled.includes('1d:1d'), rolled.join(' '))
      assert.equal(await assertExact(a, r, 'UTC', 'read by a'), rolled)
      // a late value into a rolled hour: pending again, exact at once in both
      await a.write([{ ...pts[0]!, time: T0 + HOUR + 1, value: 99_999 }])
      const late = await assertExact(b, r, 'UTC', 'late value')
      assert.ok(late.includes('1h:raw') || late.includes('1h:1h'), late.join(' '))
      const max = (await b.aggregate(r, 'max', { every: '1d', tz: 'UTC' })).get('y')!.value
      assert.ok(max.includes(99_999), String(max))
      settleClocks()
      await a.rollDue()
      await b.rollDue()
      const again = await assertExact(b, r, 'UTC', 'late value rolled')
      assert.ok(again.includes('1d:1d'), again.join(' '))
    },
  )

  t(
    'a process killed after writing :: its marks stay pending, reads stay exact, another process rolls them',
    async () => {
      const [tn, d] = [uid('t'), uid('d')]
      const pts = series(tn, d, T0, T0 + 2 * HOUR, 30_000)
      const { now: _clock, ...wire } = base
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(import.meta.dirname, 'influx-rollups-child.ts'),
          JSON.stringify(wire),
          JSON.stringify(pts),
          String(skew),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (b: Buffer) => b.toString().includes('written') && resolve())
        child.on('exit', (code) => reject(new Error(`child ended with ${code}`)))
      })
      child.kill('SIGKILL')
      const s = await store()
      const r = aroundT0(tn, d)
      assert.equal(
        (await s.readRaw(r)).get('x')!.time.length,
        pts.filter((p) => p.dataPointID === 'x').length,
      )
      await assertRawUntilSettled(s, r)
      // the survivor's own roller (every ROLL_EVERY_MS) may be under way and read the settled clock after an await,
      // rolling the marks before this call, which then finds none due: what counts is that they get rolled (below)
      await s.rollDue()
      await s.rollDue()
      const after = await assertExact(s, r, 'UTC', 'rolled by the survivor')
      assert.ok(after.includes('1h:1h') && after.includes('1d:1d'), after.join(' '))
    },
  )

  t(
    'hours of one day rolled by two processes at once :: the day window holds every hour',
    async () => {
      const [a, b] = [await store(), await store()]
      const [tn, d] = [uid('t'), uid('d')]
      await a.write(series(tn, d, DAY0 + 1 * HOUR, DAY0 + 7 * HOUR, 60_000))
      await b.write(series(tn, d, DAY0 + 12 * HOUR, DAY0 + 18 * HOUR, 60_000))
      const rolled = await Promise.all([a.rollUp(), b.rollUp()])
      assert.ok(rolled[0] + rolled[1] >= 12, String(rolled))
      // day folds race the hours: whatever one fold missed left its day mark pending for the next pass
      for (let i = 0; i < 2; i++) await Promise.all([a.rollUp(), b.rollUp()])
      const r = dayOf(tn, d)
      const seen = await assertExact(a, r, 'UTC', 'both halves')
      assert.ok(seen.includes('1d:1d'), seen.join(' '))
    },
  )

  t(
    'a bucket holding values from before rollups :: read raw until backfilled, then from rollups, the same answers',
    async () => {
      const plain = await store({ rollupBucket: undefined })
      const [tn, d] = [uid('t'), uid('d')]
      await plain.write(series(tn, d, DAY0 + 20 * HOUR, DAY0 + 23 * HOUR, 20_000))
      const fresh = await store({ rollupBucket: `${influx.rollupBucket}_backfill` })
      const r = dayOf(tn, d)
      const before = await assertExact(fresh, r, 'UTC', 'before the backfill')
      assert.ok(
        before.every((x) => x.endsWith(':raw')),
        before.join(' '),
      )
      assert.ok((await fresh.rollUp()) >= 3)
      await fresh.rollUp()
      const after = await assertExact(fresh, r, 'UTC', 'backfilled')
      assert.ok(after.includes('1h:1h') && after.includes('1d:1d'), after.join(' '))
    },
  )

  t(
    'TIMEZONE changed :: hour and day windows rebuilt in the new zone (half-hour offsets), the same answers',
    async () => {
      const zoned = `${influx.rollupBucket}_zone`
      const utc = await store({ rollupBucket: zoned })
      const [tn, d] = [uid('t'), uid('d')]
      await utc.write(series(tn, d, DAY0 - 6 * HOUR, DAY0 + 30 * HOUR, 60_000))
      await utc.rollUp()
      await utc.rollUp()
      await utc.close()
      const kolkata = await store({ rollupBucket: zoned, timezone: 'Asia/Kolkata' })
      await kolkata.rollUp()
      await kolkata.rollUp()
      const r = {
        tenantID: tn,
        deviceID: d,
        dataPointIDs: ['x'],
        start: DAY0 - 6 * HOUR,
        end: DAY0 + 30 * HOUR,
      }
      const seen = await assertExact(kolkata, r, 'Asia/Kolkata', 'Kolkata')
      assert.ok(seen.includes('1d:1d'), seen.join(' '))
      const day = await kolkata.aggregate(r, 'sum', { every: '1d', tz: 'Asia/Kolkata' })
      assert.ok(
        day.get('x')!.time.every((s) => new Date(s).getUTCMinutes() === 30),
        'Kolkata days start at 18:30 UTC',
      )
    },
  )

  t(
    'a token that cannot create the rollup bucket :: rollups off, writes and reads work from raw values',
    async () => {
      const orgs = (await (
        await fetch(`${influx.url}/api/v2/orgs?org=${encodeURIComponent(influx.org)}`, {
          headers: { authorization: `Token ${influx.token}` },
        })
      ).json()) as { orgs: Array<{ id: string }> }
      const orgID = orgs.orgs[0]!.id
      const buckets = (await (
        await fetch(`${influx.url}/api/v2/buckets?name=${influx.bucket}&orgID=${orgID}`, {
          headers: { authorization: `Token ${influx.token}` },
        })
      ).json()) as { buckets: Array<{ id: string }> }
      const resource = { type: 'buckets', orgID, id: buckets.buckets[0]!.id }
      const auth = await fetch(`${influx.url}/api/v2/authorizations`, {
        method: 'POST',
        headers: { authorization: `Token ${influx.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          orgID,
          description: 'raw bucket only',
          permissions: [
            { action: 'read', resource },
            { action: 'write', resource },
          ],
        }),
      })
      assert.is(auth.status, 201, await auth.clone().text())
      const { token, id } = (await auth.json()) as { token: string; id: string }
      try {
        const errors: unknown[] = []
        const s = await store({
          token,
          rollupBucket: `${influx.rollupBucket}_forbidden`,
          onError: (e) => errors.push(e),
        })
        const [tn, d] = [uid('t'), uid('d')]
        await s.write(series(tn, d, DAY0 + 2 * HOUR, DAY0 + 4 * HOUR, 60_000))
        const r = { tenantID: tn, deviceID: d, dataPointIDs: ['x'], start: DAY0, end: DAY0 + DAY }
        const seen = await assertExact(s, r, 'UTC', 'rollups off')
        assert.ok(
          seen.every((x) => x.endsWith(':raw')),
          seen.join(' '),
        )
        assert.is(await s.rollUp(), 0)
        assert.match(String(errors[0]), /rollups off/)
      } finally {
        await fetch(`${influx.url}/api/v2/authorizations/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Token ${influx.token}` },
        })
      }
    },
  )

  t.run()
}
