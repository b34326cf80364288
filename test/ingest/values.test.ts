import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { checkValue, epochMs, isPlainNumber, type PointSpec } from '../../ingest/values.ts'

const point = (pointDataType: number, extra: Partial<PointSpec> = {}): PointSpec => ({
  id: 1,
  dataPointID: 'p',
  dataPointName: 'P',
  pointDataType,
  upperLimit: null,
  lowerLimit: null,
  binarySize: null,
  ...extra,
})
const ok = (t: number, v: unknown, extra?: Partial<PointSpec>) => {
  const c = checkValue(point(t, extra), v)
  assert.ok(c.ok, `type ${t} should take ${JSON.stringify(v)}: ${!c.ok ? c.reason : ''}`)
  if (!c.ok) throw new Error('unreachable')
  return c
}
const bad = (t: number, v: unknown, extra?: Partial<PointSpec>) => {
  const c = checkValue(point(t, extra), v)
  assert.not.ok(c.ok, `type ${t} should refuse ${JSON.stringify(v)}`)
  if (c.ok) throw new Error('unreachable')
  return c.reason
}

const values = suite('checkValue (pure)')

values(
  'isPlainNumber :: only where checkValue would store the value as it is, with no note',
  () => {
    const samples = [
      0,
      -0,
      21.5,
      -1e300,
      1e39,
      NaN,
      Infinity,
      '21.5',
      '',
      null,
      true,
      [1],
      { v: 1 },
    ]
    const specs = [
      {},
      { upperLimit: 100 },
      { lowerLimit: 0 },
      // eslint-disable-next-line no-loss-of-precision -- limits beyond a double: Infinity, as a body can send them
      { upperLimit: 1e400, lowerLimit: -1e400 },
    ]
    let plain = 0
    for (let t = 0; t <= 26; t++)
      for (const extra of specs)
        for (const v of samples) {
          if (!isPlainNumber(point(t, extra), v)) continue
          plain++
          assert.equal(
            checkValue(point(t, extra), v),
            { ok: true, value: v },
            `type ${t} ${JSON.stringify(v)}`,
          )
        }
    // finite numbers (5 samples) of types 1, 18 and 25 without limits, nothing else
    assert.is(plain, 3 * 5)
    assert.not.ok(isPlainNumber(point(17), 1), 'a single float is range-checked')
    assert.not.ok(isPlainNumber(point(1, { upperLimit: 100 }), 1), 'limits are checked')
    assert.not.ok(isPlainNumber(point(1), '1'), 'numeric text is converted')
  },
)

values('numeric types 1, 17, 18, 25 :: finite numbers and numeric text, nothing else', () => {
  for (const t of [1, 17, 18, 25]) {
    assert.is(ok(t, 21.5).value, 21.5)
    assert.is(ok(t, '-3.25').value, -3.25)
    assert.match(bad(t, 'hot'), 'expected a number')
    bad(t, true)
    bad(t, {})
    bad(t, '')
    bad(t, [1])
  }
  assert.match(bad(17, 1e39), 'single float')
  assert.is(ok(18, 1e39).value, 1e39)
})

values('integer types 15, 16, 21, 22 :: integers within their range', () => {
  assert.is(ok(15, -(2 ** 31)).value, -(2 ** 31))
  assert.match(bad(15, 2 ** 31), 'out of range')
  assert.match(bad(15, 1.5), 'expected an integer')
  assert.is(ok(16, 2 ** 32 - 1).value, 2 ** 32 - 1)
  assert.match(bad(16, -1), 'out of range')
  assert.is(ok(21, -(2 ** 40)).value, -(2 ** 40))
  assert.match(bad(21, 2 ** 60), 'out of range')
  assert.match(bad(22, -5), 'out of range')
  assert.is(ok(22, '42').value, 42)
})

values('limits :: a value outside upperLimit/lowerLimit is kept with a violation note', () => {
  const hi = ok(1, 150, { upperLimit: 100, lowerLimit: 0 })
  assert.equal([hi.value, hi.violation], [150, 'above upperLimit 100'])
  const lo = ok(1, -1, { upperLimit: 100, lowerLimit: 0 })
  assert.equal([lo.value, lo.violation], [-1, 'below lowerLimit 0'])
  assert.is(ok(1, 50, { upperLimit: 100, lowerLimit: 0 }).violation, undefined)
})

values('strings 3, 11, 12 :: text only; 11 has exactly binarySize characters when set', () => {
  assert.is(ok(3, "x'; DROP TABLE devices; --").value, "x'; DROP TABLE devices; --")
  assert.is(ok(12, '').value, '')
  assert.match(bad(3, 5), 'expected a string')
  assert.is(ok(11, 'abcd', { binarySize: 4 }).value, 'abcd')
  assert.match(bad(11, 'abc', { binarySize: 4 }), 'exactly 4 characters')
  assert.is(ok(11, 'anything').value, 'anything')
})

values('binary 13, 14 :: hex or base64 text; 13 has exactly binarySize bytes when set', () => {
  assert.is(ok(14, 'deadBEEF').value, 'deadBEEF')
  assert.is(ok(14, 'aGVsbG8=').value, 'aGVsbG8=')
  assert.match(bad(14, 'not binary!'), 'hex or base64')
  bad(14, 12)
  assert.is(ok(13, '0a0b', { binarySize: 2 }).value, '0a0b')
  assert.match(bad(13, '0a0b0c', { binarySize: 2 }), 'exactly 2 bytes')
})

values('booleans 5, 23 and bit 19 :: true/false and 0/1; bit stored as 0/1', () => {
  for (const t of [5, 23]) {
    assert.is(ok(t, true).value, true)
    assert.is(ok(t, 0).value, false)
    assert.is(ok(t, 'true').value, true)
    assert.match(bad(t, 2), 'expected a boolean')
    bad(t, 'yes')
  }
  assert.is(ok(19, true).value, 1)
  assert.is(ok(19, 0).value, 0)
  assert.match(bad(19, 3), 'expected a bit')
})

values(
  'geolocation 6 :: {lon, lat}, [lon, lat] or "lon,lat" stored as "lon,lat"; range checked',
  () => {
    assert.is(ok(6, { lon: 116.4, lat: 39.9 }).value, '116.4,39.9')
    assert.is(ok(6, '116.4, 39.9').value, '116.4,39.9')
    assert.is(ok(6, [1, 2]).value, '1,2')
    assert.match(bad(6, { lon: 200, lat: 0 }), 'out of range')
    assert.match(bad(6, 'somewhere'), 'expected a location')
    bad(6, 5)
  },
)

values('fault 4 :: text or number as given', () => {
  assert.is(ok(4, 'E42').value, 'E42')
  assert.is(ok(4, 7).value, 7)
  assert.match(bad(4, { code: 1 }), 'fault')
})

values('time 24 :: epoch s, epoch ms or date text → ms', () => {
  assert.is(ok(24, 1700000000).value, 1700000000000)
  assert.is(ok(24, 1700000000123).value, 1700000000123)
  assert.is(ok(24, '2024-01-02T03:04:05Z').value, Date.UTC(2024, 0, 2, 3, 4, 5))
  assert.match(bad(24, 'yesterday-ish'), 'expected a time')
  bad(24, -1)
})

values('null, undefined and unknown types :: refused with a reason', () => {
  assert.is(bad(1, null), 'no value')
  assert.is(bad(1, undefined), 'no value')
  assert.match(bad(99, 1), 'unsupported pointDataType 99')
})

values('epochMs :: seconds below 10^12, milliseconds above', () => {
  assert.is(epochMs(1), 1000)
  assert.is(epochMs(1700000000.5), 1700000000500)
  assert.is(epochMs(1700000000000), 1700000000000)
})

values.run()
