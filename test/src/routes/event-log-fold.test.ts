/**
 * The event log's fold against the real service: every list answer (device_events, a device's and a gateway's
 * events) over every sort, order, filter and time range, with offsets and cursors, is the same byte for byte when
 * all events are rows (the oracle: SQLite over one table), when some are folded into blocks and when all are.
 * Two tenants; cursors given before a fold stay valid after it; counts; deletes of devices and retention.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../../_support/service.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { EventInput, LogRepository } from '../../../store/types.ts'
import { kits } from './_variant.ts'

const BASE = Date.UTC(2024, 2, 1, 10, 0, 0)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let t: TestService
let logs: LogRepository
let tenantA: string
let tenantB: string
let b: Awaited<ReturnType<TestService['newTenant']>>
let devA: number
let devA2: number
let gw: number
let devB: number
let productBID: number
let cutoff: number

const PAYLOADS = [
  (i: number) => JSON.stringify({ temp: (i % 97) / 4 - 10, hum: i * 13, n: i }),
  (i: number) => `{"v":-${i}.5e3,"big":123456789012345678901234,"s":"a,b ${i}"}`,
  () => null,
  () => '',
  (i: number) => `raw \u0001 text ${i}`,
  (i: number) => `ünï-${i} 𝄞 ${i % 3}`,
]
const TOPICS = ['telemetry', 'alarm', null, "x'%_y"]

/** Event i of a device: times repeat (ties), topics, statuses, IPs, payloads and names vary. */
function eventOf(i: number, tenantID: string, deviceIntID: number, deviceID: string): EventInput {
  return {
    tenantID,
    deviceIntID,
    deviceID,
    deviceName: i % 50 < 40 ? `name-${deviceID}` : `renamed-${deviceID}`,
    productIntID: null,
    topic: TOPICS[i % 4]!,
    payload: PAYLOADS[i % PAYLOADS.length]!(i),
    IP: i % 7 === 0 ? null : `10.0.0.${i % 3}`,
    status: i % 9 === 0 ? 0 : 1,
    reason: i % 9 === 0 ? `bad value ${i % 2}` : null,
    msgTime: BASE + ((i * 7919) % 400) * 60_000 + (i % 3),
  }
}

async function add(from: number, to: number) {
  const rows: EventInput[] = []
  for (let i = from; i < to; i++) {
    rows.push(eventOf(i, tenantA, [devA, devA2, gw][i % 3]!, ['A1', 'A2', 'G1'][i % 3]!))
    if (i % 4 === 0) rows.push({ ...eventOf(i, tenantB, devB, 'B1'), productIntID: productBID })
  }
  // a few inserts, so createAt differs between events
  for (let k = 0; k < rows.length; k += 400) {
    await logs.addEvents(rows.slice(k, k + 400))
    await sleep(2)
  }
}

const time = (ms: number) =>
  encodeURIComponent(new Date(ms).toISOString().slice(0, 19).replace('T', ' '))

/** The list queries compared: every sort both ways, filters, time ranges, offsets. */
function queries(): string[] {
  const sorts = [
    '',
    'msgTime',
    'id',
    'createAt',
    'updateAt',
    'deviceName',
    'deviceID',
    'topic',
    'status',
  ]
  const filters = [
    '',
    'topic=alarm',
    'topic_like=TEL',
    `topic_like=${encodeURIComponent("'%_")}`,
    'status=0',
    'deviceID=A2',
    'deviceName_like=renamed',
    `startTime=${time(BASE + 60 * 60_000)}&endTime=${time(BASE + 200 * 60_000 + 1)}`,
    `status=1&topic_like=a&startTime=${time(BASE + 17 * 60_000)}`,
  ]
  const out: string[] = []
  for (const sort of sorts)
    for (const order of sort ? ['asc', 'desc'] : [''])
      for (const f of filters)
        for (const page of [1, 4])
          out.push(
            [sort && `_sort=${sort}`, order && `_order=${order}`, f, `_limit=23&_page=${page}`]
              .filter(Boolean)
              .join('&'),
          )
  return out
}

const PATHS = () => [
  '/api/v1/device_events',
  `/api/v1/devices/${devA}/events`,
  `/api/v1/gateways/${gw}/events`,
]

/** Every answer (status and body) of every path and query, as text. */
async function answers(): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const path of PATHS())
    for (const q of queries()) {
      if (path.includes('/gateways/') && /deviceID|deviceName/.test(q)) continue
      const r = await t.admin.get(`${path}?${q}`)
      out.set(`${path}?${q}`, `${r.status} ${JSON.stringify(r.body)}`)
    }
  const other = await b.get('/api/v1/device_events?_limit=100&_sort=msgTime&_order=asc')
  out.set('tenant B', JSON.stringify(other.body))
  return out
}

/** Every event of a list, walking its cursors 97 at a time. */
async function walk(query: string): Promise<unknown[]> {
  const items: unknown[] = []
  let next: string | null = null
  do {
    const after: string = next ? `&_after=${encodeURIComponent(next)}` : ''
    const r = await t.admin.get(`/api/v1/device_events?_limit=97&${query}${after}`)
    assert.is(r.status, 200, JSON.stringify(r.body))
    items.push(...r.body.items)
    next = r.body.meta.next
  } while (next)
  return items
}

function sameAnswers(before: Map<string, string>, after: Map<string, string>) {
  assert.is(after.size, before.size)
  let differ = 0
  for (const [k, v] of before)
    if (after.get(k) !== v) {
      if (differ++ < 3) assert.fixture(after.get(k)!, v, k)
    }
  assert.is(differ, 0)
}

const fold = suite('event log: folded blocks answer as the rows did')
let oracle: Map<string, string>
let walks: unknown[][]
const WALKS = ['', '_sort=topic&_order=asc', 'status=1&_sort=createAt&_order=desc']
let cursorBefore: string
let pageAfterCursor: string

fold.before(async () => {
  t = await startTestService()
  logs = t.svc.deps.meta.logs
  tenantA = await tenantOf(t)
  b = await t.newTenant()
  tenantB = b.tenantID
  const product = (
    await t.admin.post('/api/v1/products', kits.A.productBody({ productName: 'Meters' }))
  ).body
  const productB = (await b.post('/api/v1/products', kits.A.productBody({ productName: 'Other' })))
    .body
  devA = await insertDevice(t, tenantA, product.id, { deviceID: 'A1', deviceName: 'name-A1' })
  devA2 = await insertDevice(t, tenantA, product.id, { deviceID: 'A2', deviceName: 'name-A2' })
  gw = await insertDevice(t, tenantA, product.id, { deviceID: 'G1', kind: 'gateway' })
  productBID = productB.id
  devB = await insertDevice(t, tenantB, productB.id, { deviceID: 'B1' })
  await add(0, 1500)
  await sleep(5)
  cutoff = Date.now()
  await sleep(5)
  await add(1500, 3000)
  oracle = await answers()
  walks = await Promise.all(WALKS.map(walk))
  const first = await t.admin.get('/api/v1/device_events?_limit=50')
  cursorBefore = first.body.meta.next
  pageAfterCursor = JSON.stringify(
    (
      await t.admin.get(
        `/api/v1/device_events?_limit=50&_after=${encodeURIComponent(cursorBefore)}`,
      )
    ).body,
  )
})
fold.after(async () => t?.close())

const tail = async () => Number((await t.db.one('SELECT count(*) AS n FROM events'))!.n)
const blocks = async () => Number((await t.db.one('SELECT count(*) AS n FROM event_blocks'))!.n)

fold(
  'half folded :: the events inserted before the cutoff move to blocks; every answer is the same',
  async () => {
    const rows = await tail()
    const r = await t.svc.deps.services.eventFold.fold(cutoff)
    assert.ok(r.events > 1500 && r.events < rows, `${r.events} of ${rows} folded`)
    assert.is(await tail(), rows - r.events)
    assert.ok((await blocks()) >= 8, 'blocks of each device and name')
    sameAnswers(oracle, await answers())
    assert.equal(await Promise.all(WALKS.map(walk)), walks)
  },
)

fold(
  'all folded :: the tail is empty; answers, cursor walks and a cursor given before the fold are the same',
  async () => {
    const r = await t.svc.deps.services.eventFold.fold(Date.now() + 1)
    assert.ok(r.events > 1000, `${r.events}`)
    assert.is(await tail(), 0)
    const { pages, free } = (await t.db.one(
      'SELECT page_count AS pages, freelist_count AS free FROM pragma_page_count, pragma_freelist_count',
    )) as { pages: number; free: number }
    assert.ok(free * 4 < pages, `the pages the rows freed went back: ${free} of ${pages} free`)
    sameAnswers(oracle, await answers())
    assert.equal(await Promise.all(WALKS.map(walk)), walks)
    const again = await t.admin.get(
      `/api/v1/device_events?_limit=50&_after=${encodeURIComponent(cursorBefore)}`,
    )
    assert.is(JSON.stringify(again.body), pageAfterCursor)
    // a second fold finds nothing left
    assert.is((await t.svc.deps.services.eventFold.fold(Date.now() + 1)).events, 0)
  },
)

fold('new events after a fold :: rows and blocks together, newest first', async () => {
  await logs.addEvents([{ ...eventOf(5, tenantA, devA, 'A1'), msgTime: BASE + 500 * 60_000 }])
  const r = await t.admin.get(`/api/v1/devices/${devA}/events?_limit=2`)
  assert.is(r.body.meta.count, 1001)
  assert.is(r.body.items[0].msgTime, '2024-03-01 18:20:00')
  // the overview's messages of the last minute count folded events too
  const recent = Date.now() - 5000
  await logs.addEvents(
    [0, 1, 2].map((i) => ({ ...eventOf(i, tenantA, devA2, 'A2'), msgTime: recent })),
  )
  await t.svc.deps.services.eventFold.fold(Date.now() + 1)
  assert.is(await tail(), 0)
  const overview = await t.admin.get('/api/v1/overview')
  assert.is(overview.body.messagesPerMinute, 3)
  const inRange = await t.admin.get(`/api/v1/device_events?startTime=${time(recent - 1000)}`)
  assert.is(inRange.body.meta.count, 3)
})

fold(
  'the job :: runs once an interval across processes (its lease row); rows younger than 5 minutes stay',
  async () => {
    const job = t.svc.deps.services.eventFold
    await logs.addEvents([eventOf(9, tenantA, devA, 'A1')])
    const first = await job.runIfDue()
    assert.ok(first, 'the first check runs it')
    assert.is(first.events, 0, 'a fresh row is not folded')
    assert.is(await job.runIfDue(), undefined, 'not due again within the interval')
    const lease = await t.db.one(
      "SELECT last_result AS r FROM job_leases WHERE name = 'event-fold'",
    )
    assert.is(JSON.parse(String(lease!.r)).events, 0)
    await job.fold(Date.now() + 1)
  },
)

fold(
  'the index by device :: the running service brings it up to the newest row within seconds; reads agree',
  async () => {
    await logs.addEvents([0, 1, 2, 3].map((i) => eventOf(20 + i, tenantA, devA2, 'A2')))
    const newest = Number((await t.db.one('SELECT max(id) AS m FROM events'))!.m)
    const mark = async () => Number((await t.db.one('SELECT upto FROM event_device_mark'))!.upto)
    const before = (await t.admin.get(`/api/v1/devices/${devA2}/events?_limit=100`)).body
    assert.ok(before.meta.count >= 4)
    const started = Date.now()
    while ((await mark()) < newest) {
      assert.ok(Date.now() - started < 10_000, 'indexed within 10 s')
      await sleep(100)
    }
    assert.equal((await t.admin.get(`/api/v1/devices/${devA2}/events?_limit=100`)).body, before)
  },
)

fold('other tenant :: sees none of these blocks; a foreign device is 404', async () => {
  const mine = await b.get('/api/v1/device_events?_limit=1')
  assert.is(mine.body.meta.count, 750)
  assert.is((await b.get(`/api/v1/devices/${devA}/events`)).status, 404)
  assert.is((await b.get('/api/v1/device_events?deviceID=A1')).body.meta.count, 0)
})

fold(
  'deletes :: a deleted device takes its blocks; retention deletes whole blocks past the limit',
  async () => {
    const before = await blocks()
    const del = await t.admin.del(`/api/v1/devices?ids=${devA2}`)
    assert.ok(del.status < 300, JSON.stringify(del.body))
    assert.ok((await blocks()) < before)
    assert.is((await t.admin.get('/api/v1/device_events?deviceID=A2')).body.meta.count, 0)
    const retention = t.svc.deps.meta.retention
    const r = await retention.pruneEventBlocks(null, BASE + 1000 * 60_000, 1000)
    assert.ok(r.blocks > 0 && r.events > 0)
    // tenant B's device has its own product: its blocks are that product's, left alone
    assert.is((await b.get('/api/v1/device_events?_limit=1')).body.meta.count, 750)
  },
)

fold.run()
