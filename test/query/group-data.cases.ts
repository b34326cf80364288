/**
 * GET /api/v1/group_data over the real service, on a given telemetry store and API variant: values sent through HTTP
 * ingest (payload form 2, with times) by the members of two groups, read back per window in TIMEZONE Europe/Berlin.
 * Every expected number is computed by hand. Also: groupIntID for groupID, the first 20 members of a larger group
 * (truncated, the band over all 22), a viewer, another tenant's group (404) and the refused parameters (400 naming
 * each).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../_support/service.ts'
import { assertRefusal } from '../_support/asserts.ts'
import type { Wire } from '../_support/wire.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import { basic } from '../src/routes/_ingest.ts'
import {
  created,
  kitDevices,
  kitGroup,
  type DeviceRecord,
  type VariantKit,
} from '../src/routes/_variant.ts'
import type { GroupData } from '../../src/schemas/telemetry.ts'
import type { IngestReply } from '../../src/schemas/ingest.ts'

const MIN = 60_000
/** 2026-11-02 00:00 in Berlin (CET, +01:00). */
const T0 = Date.parse('2026-11-01T23:00:00Z')
const RANGE = { startTime: '2026-11-02 00:00:00', endTime: '2026-11-02 01:59:59' }

type Answer = Wire<typeof GroupData>

export function groupDataCases(
  name: string,
  kit: VariantKit,
  env: () => Promise<Record<string, string> | undefined>,
  cleanup: () => Promise<void> = async () => {},
) {
  const test = suite(`group_data: ${name}, variant ${kit.v}`)
  let t: TestService
  let c: Client
  let product: { id: number; productID: string }
  let group: { id: number; groupID: string; groupName: string }
  let big: { id: number; groupID: string }
  const named = new Map<string, DeviceRecord>()
  const tag = Date.now().toString(36)

  /** Sends `values` of `device` at T0 + minutes: [minutes, {dataPointID: value}]. */
  async function ingest(device: DeviceRecord, rows: Array<[number, Record<string, unknown>]>) {
    const messages = rows.map(([m, values]) => ({
      topic: 'telemetry',
      payload: {
        data_type: 'event',
        data: Object.fromEntries(
          Object.entries(values).map(([k, value]) => [k, { time: T0 + m * MIN, value }]),
        ),
      },
    }))
    const r = await new Client(t.url, basic(device)).post<Wire<typeof IngestReply>>(
      '/api/v1/ingest',
      { messages },
    )
    assert.is(r.status, 202, r.text)
    assert.equal(r.body.rejected, [], r.text)
  }

  const get = (params: Record<string, string | number>, as: Client = c) =>
    as.get<Answer>(
      `/api/v1/group_data?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
    )

  /** A group of the kit's product with `devices` as members. */
  async function groupOf(devices: DeviceRecord[]) {
    const g = await kitGroup(kit, product.productID, c)
    const r = await c.post(`/api/v1/groups/${g.id}/devices`, { ids: devices.map((d) => d.id) })
    assert.is(r.status < 300, true, r.text)
    return g
  }

  test.before(async () => {
    t = await startTestService({ TIMEZONE: 'Europe/Berlin', ...kit.env, ...(await env()) })
    c = t.admin
    const made = await kitDevices(kit, c, 0)
    product = made.product
    const temp = await mkPoint(c, product.id, 'temp', {
      unitName: 'degree Celsius',
      unitSymbol: '°C',
    })
    const hum = await mkPoint(c, product.id, 'hum', { pointDataType: 16 })
    const label = await mkPoint(c, product.id, 'label', { pointDataType: 3 })
    await mkStream(c, product.productID, [temp.id, hum.id, label.id], { topic: 'telemetry' })
    // created c, a, b: the answer lists them by name
    for (const n of ['c', 'a', 'b'])
      named.set(
        n,
        await created<DeviceRecord>(
          c,
          '/api/v1/devices',
          kit.deviceBody(product.productID, { deviceName: `${tag}-${n}` }),
        ),
      )
    group = await groupOf([...named.values()])
    await ingest(named.get('a')!, [
      [0, { temp: 10 }],
      [5, { hum: 50 }],
      [30, { temp: 20 }],
      [60, { temp: 30 }],
    ])
    await ingest(named.get('b')!, [
      [10, { temp: 1 }],
      [70, { temp: 5 }],
    ])
    await ingest(named.get('c')!, [
      [15, { hum: 70, label: 'x' }],
      [65, { hum: 90 }],
    ])
    // 22 members, created last name first: member i sends temp = i at minute i
    const many: DeviceRecord[] = []
    for (let i = 21; i >= 0; i--) {
      const body = kit.deviceBody(product.productID, {
        deviceName: `${tag}-m${String(i).padStart(2, '0')}`,
      })
      const d = await created<DeviceRecord>(c, '/api/v1/devices', body)
      await ingest(d, [[i, { temp: i }]])
      many.push(d)
    }
    big = await groupOf(many)
  })

  test.after(async () => {
    await t?.close()
    await cleanup()
  })

  test('temp per hour :: members by name with their means, the group band over all of them, the unit', async () => {
    const r = await get({ groupID: group.groupID, dataPointID: 'temp', interval: '1h', ...RANGE })
    assert.is(r.status, 200, r.text)
    const { series, group: band, resolution, ...head } = r.body
    assert.ok(['raw', '1m', '1h', '1d'].includes(resolution), resolution)
    assert.equal(head, {
      groupIntID: group.id,
      groupID: group.groupID,
      groupName: group.groupName,
      dataPointIntID: head.dataPointIntID,
      dataPointID: 'temp',
      dataPointName: head.dataPointName,
      unitName: 'degree Celsius',
      unitSymbol: '°C',
      interval: '1h',
      deviceCount: 3,
      truncated: false,
    })
    const [a, b, cc] = ['a', 'b', 'c'].map((n) => named.get(n)!)
    assert.equal(series, [
      {
        deviceIntID: a!.id,
        deviceID: a!.deviceID,
        deviceName: `${tag}-a`,
        points: [
          { time: '2026-11-02 00:00:00', value: 15 },
          { time: '2026-11-02 01:00:00', value: 30 },
        ],
      },
      {
        deviceIntID: b!.id,
        deviceID: b!.deviceID,
        deviceName: `${tag}-b`,
        points: [
          { time: '2026-11-02 00:00:00', value: 1 },
          { time: '2026-11-02 01:00:00', value: 5 },
        ],
      },
      // no temp at all: listed, without points
      { deviceIntID: cc!.id, deviceID: cc!.deviceID, deviceName: `${tag}-c`, points: [] },
    ])
    assert.equal(band, [
      { time: '2026-11-02 00:00:00', min: 1, avg: 31 / 3, max: 20, count: 3 },
      { time: '2026-11-02 01:00:00', min: 5, avg: 17.5, max: 30, count: 2 },
    ])
  })

  test('another data point, groupIntID, 30-minute windows :: hum of its own members; the same answer by either id', async () => {
    const params = { dataPointID: 'hum', interval: '30m', ...RANGE }
    const byID = await get({ groupID: group.groupID, ...params })
    const byIntID = await get({ groupIntID: group.id, ...params })
    assert.is(byID.status, 200, byID.text)
    assert.equal(byIntID.body, byID.body)
    assert.equal(
      byID.body.series.map((s) => [s.deviceName, s.points]),
      [
        [`${tag}-a`, [{ time: '2026-11-02 00:00:00', value: 50 }]],
        [`${tag}-b`, []],
        [
          `${tag}-c`,
          [
            { time: '2026-11-02 00:00:00', value: 70 },
            { time: '2026-11-02 01:00:00', value: 90 },
          ],
        ],
      ],
    )
    assert.equal(byID.body.group, [
      { time: '2026-11-02 00:00:00', min: 50, avg: 60, max: 70, count: 2 },
      { time: '2026-11-02 01:00:00', min: 90, avg: 90, max: 90, count: 1 },
    ])
    assert.equal([byID.body.unitName, byID.body.unitSymbol], [null, null])
  })

  test('22 members :: the first 20 by name, truncated, the band over all 22', async () => {
    const r = await get({ groupID: big.groupID, dataPointID: 'temp', interval: '1h', ...RANGE })
    assert.is(r.status, 200, r.text)
    assert.equal([r.body.deviceCount, r.body.truncated, r.body.series.length], [22, true, 20])
    assert.equal(
      r.body.series.map((s) => [s.deviceName, s.points]),
      Array.from({ length: 20 }, (_, i) => [
        `${tag}-m${String(i).padStart(2, '0')}`,
        [{ time: '2026-11-02 00:00:00', value: i }],
      ]),
    )
    assert.equal(r.body.group, [
      { time: '2026-11-02 00:00:00', min: 0, avg: 10.5, max: 21, count: 22 },
    ])
  })

  test('a viewer :: reads the same answer', async () => {
    const viewer = await t.userWithRole('viewer')
    const params = { groupID: group.groupID, dataPointID: 'temp', interval: '1h', ...RANGE }
    const r = await get(params, viewer)
    assert.is(r.status, 200, r.text)
    assert.equal(r.body, (await get(params)).body)
  })

  test("another tenant's group, unknown groups :: 404 naming groupID", async () => {
    const other = await t.newTenant()
    const theirs = await kitDevices(kit, other, 0)
    const foreign = await kitGroup(kit, theirs.product.productID, other)
    const wrong: Array<Record<string, string | number>> = [
      { groupID: foreign.groupID },
      { groupIntID: foreign.id },
      { groupID: 'no-such' },
      { groupIntID: 999_999 },
      { groupID: group.groupID, groupIntID: big.id },
    ]
    for (const g of wrong)
      assertRefusal(await get({ ...g, dataPointID: 'temp', ...RANGE }), 404, ['groupID'])
    // and they cannot read ours
    assertRefusal(await get({ groupID: group.groupID, dataPointID: 'temp' }, other), 404, [
      'groupID',
    ])
  })

  test('refused parameters :: 400 PARAMETER_INVALID naming each', async () => {
    const g = { groupID: group.groupID }
    for (const [params, field] of [
      [{ dataPointID: 'temp' }, 'groupID'],
      [{ ...g }, 'dataPointID'],
      [{ ...g, dataPointID: 'nope' }, 'dataPointID'],
      [{ ...g, dataPointID: 'label' }, 'dataPointID'],
      [{ ...g, dataPointID: 'temp', interval: '30s' }, 'interval'],
      [{ ...g, dataPointID: 'temp', interval: 'often' }, 'interval'],
      [{ ...g, dataPointID: 'temp', interval: '1m', time_unit: 'month' }, 'interval'],
      [
        {
          ...g,
          dataPointID: 'temp',
          startTime: '2026-11-03 00:00:00',
          endTime: '2026-11-02 00:00:00',
        },
        'startTime',
      ],
      [{ ...g, dataPointID: 'temp', startTime: 'yesterday' }, 'startTime'],
      [{ ...g, dataPointID: 'temp', groupIntID: 'x' }, 'groupIntID'],
    ] as const)
      assertRefusal(await get(params), 400, [field], 'PARAMETER_INVALID')
  })

  test('the default window :: 1h for a day of startTime/endTime', async () => {
    const r = await get({
      groupID: group.groupID,
      dataPointID: 'temp',
      startTime: '2026-11-02 00:00:00',
      endTime: '2026-11-02 23:59:59',
    })
    assert.is(r.status, 200, r.text)
    assert.is(r.body.interval, '1h')
    assert.equal(
      r.body.group.map((w) => w.time),
      ['2026-11-02 00:00:00', '2026-11-02 01:00:00'],
    )
  })

  test.run()
}
