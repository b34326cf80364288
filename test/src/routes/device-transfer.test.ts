import * as assert from 'uvu/assert'
import { parseCsvRecords } from '../../../src/kernel/csv.ts'
import {
  DEVICE_CSV_FIELDS,
  type ImportResult,
  type TaskAccepted,
} from '../../../src/schemas/device-transfer.ts'
import type { DeviceListItem } from '../../../src/schemas/devices.ts'
import { waitTask, type Client, type TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { ErrorBody, Page, Wire } from '../../_support/wire.ts'
import { mqttBody } from './devices-helpers.ts'

type Devices = Page<Wire<typeof DeviceListItem>>
/** A refusal of the import form, naming the bad fields. */
type Refusal = ErrorBody & { errors: Record<string, string> }

let t: TestService
let productID: string

function upload(client: Client, csv: string) {
  const form = new FormData()
  form.set('file', new Blob([csv], { type: 'text/csv' }), 'devices.csv')
  return fetch(`${client.url}/api/v1/devices_import`, {
    method: 'POST',
    headers: { authorization: client.authorization! },
    body: form,
  })
}

const device = (name: string, extra: Record<string, unknown> = {}) =>
  mqttBody(productID, { deviceName: name, ...extra })

const transfer = serviceSuite(
  'devices export and import',
  async (svc) => {
    t = svc
    productID = (await t.admin.post('/api/v1/products', { productName: 'P', cloudProtocol: 1 }))
      .body.productID
  },
  { IMPORT_BODY_LIMIT: '20000' },
)

transfer(
  'export :: 202 {statusUrl, taskID}, task done, CSV with a header row of field names',
  async () => {
    for (const n of ['e1', 'e2', 'e3'])
      assert.is(
        (await t.admin.post('/api/v1/devices', device(n, { location: { city: 'Köln, "DE"' } })))
          .status,
        201,
      )
    const r = await t.admin.get('/api/v1/devices_export?deviceName_like=e')
    assert.is(r.status, 202)
    assert.equal(Object.keys(r.body).sort(), ['statusUrl', 'taskID'])
    assert.match(r.body.taskID, /^[\w-]+$/)
    assert.is(r.body.statusUrl, `/task_status/${r.body.taskID}`)
    const task = await waitTask(t.admin, r.body.statusUrl)
    assert.is(task.status, 3)
    assert.is(task.statusLabel, '已完成')
    assert.is(task.result.count, 3)
    const file = await t.admin.get(task.result.fileUrl.replace('/api/v1', '/api/v1'))
    assert.is(file.status, 200)
    assert.match(file.headers.get('content-type')!, /text\/csv/)
    const { header, records } = parseCsvRecords(file.text)
    assert.equal(header, [...DEVICE_CSV_FIELDS])
    assert.equal(records.map((x) => x.deviceName).sort(), ['e1', 'e2', 'e3'])
    assert.equal(JSON.parse(records[0]!.location!), { city: 'Köln, "DE"' })
    assert.is(records[0]!.token!.length, 36)
  },
)

transfer('export then import after delete :: the same devices come back', async () => {
  const r = await t.admin.get('/api/v1/devices_export?deviceName_like=e')
  const task = await waitTask(t.admin, r.body.statusUrl)
  const csv = (await t.admin.get(task.result.fileUrl)).text
  const before = (
    await t.admin.get<Devices>('/api/v1/devices?deviceName_like=e&_sort=deviceName&_order=asc')
  ).body.items
  assert.is(
    (await t.admin.del(`/api/v1/devices?ids=${before.map((d) => d.id).join(',')}`)).status,
    204,
  )
  const imp = await upload(t.admin, csv)
  assert.is(imp.status, 202)
  const started = (await imp.json()) as Wire<typeof TaskAccepted>
  assert.equal(Object.keys(started).sort(), ['statusUrl', 'taskID'])
  assert.is(started.statusUrl, `/task_status/${started.taskID}`)
  const done = await waitTask(t.admin, started.statusUrl)
  assert.equal(done.result, { success: 3, failed: 0, errors: [] })
  const after = (
    await t.admin.get<Devices>('/api/v1/devices?deviceName_like=e&_sort=deviceName&_order=asc')
  ).body.items
  assert.equal(
    after.map((d) => [d.deviceID, d.token, d.deviceName]),
    before.map((d) => [d.deviceID, d.token, d.deviceName]),
  )
})

transfer(
  'import with bad rows :: per-row errors, good rows created, bad rows create nothing',
  async () => {
    const csv = [
      'deviceName,productID,deviceType,upLinkSystem,cloudProtocol,authType,deviceID,latitude',
      `ok-1,${productID},1,1,1,1,,`,
      `,${productID},1,1,9,1,,`,
      `ok-2,${productID},1,1,1,1,dup-id-1,`,
      `dup-2,${productID},1,1,1,1,dup-id-1,`,
      `far,${productID},1,1,1,1,,200`,
      `nop,NOPE,1,1,1,1,,`,
    ].join('\n')
    const res = await upload(t.admin, csv)
    assert.is(res.status, 202)
    const done = await waitTask(
      t.admin,
      ((await res.json()) as Wire<typeof TaskAccepted>).statusUrl,
    )
    const result: Wire<typeof ImportResult> = done.result
    assert.is(result.success, 2)
    assert.is(result.failed, 4)
    const byRow = (row: number) =>
      result.errors
        .filter((e) => e.row === row)
        .map((e) => e.field)
        .sort()
    assert.equal(byRow(3), ['cloudProtocol', 'deviceName'])
    assert.equal(byRow(5), ['deviceID'])
    assert.equal(byRow(6), ['latitude'])
    assert.equal(byRow(7), ['productID'])
    const names = (
      await t.admin.get<Devices>('/api/v1/devices?deviceName_in=ok-1,ok-2,dup-2,far,nop')
    ).body.items.map((d) => d.deviceName)
    assert.equal(names.sort(), ['ok-1', 'ok-2'])
  },
)

transfer('bad uploads :: 400 not multipart, 422 broken CSV or no rows, 413 too large', async () => {
  const json = await t.admin.post('/api/v1/devices_import', { file: 'x' })
  assert.is(json.status, 400)
  assert.is(json.body.errorCode, 'BAD_REQUEST')
  const broken = await upload(t.admin, 'deviceName\n"unterminated')
  assert.is(broken.status, 422)
  assert.ok(((await broken.json()) as Refusal).errors.file)
  const empty = await upload(t.admin, 'deviceName,productID\n')
  assert.is(empty.status, 422)
  const big = await upload(t.admin, 'deviceName\n' + 'x\n'.repeat(20000))
  assert.is(big.status, 413)
  assert.is(((await big.json()) as ErrorBody).errorCode, 'PAYLOAD_TOO_LARGE')
})

transfer('isolation and roles :: foreign task 404, viewer cannot import', async () => {
  const r = await t.admin.get('/api/v1/devices_export')
  const task = await waitTask(t.admin, r.body.statusUrl)
  const other = await t.newTenant()
  assert.is((await other.get(`/api/v1${r.body.statusUrl}`)).status, 404)
  assert.is((await other.get(task.result.fileUrl)).status, 404)
  const viewer = await t.userWithRole('viewer')
  const res = await upload(viewer, 'deviceName\nx\n')
  assert.is(res.status, 403)
  assert.is((await viewer.get('/api/v1/devices_export')).status, 202)
})

transfer(
  'names a spreadsheet would run :: exported with a leading quote, imported back as they were',
  async () => {
    const names = ['=HYPERLINK("http://x","y")', '-1+2', "'=already quoted"]
    for (const n of names) assert.is((await t.admin.post('/api/v1/devices', device(n))).status, 201)
    const r = await t.admin.get('/api/v1/devices_export')
    const task = await waitTask(t.admin, r.body.statusUrl)
    const csv = (await t.admin.get(task.result.fileUrl)).text
    assert.ok(csv.includes(`\n"'=HYPERLINK(""http://x"",""y"")",`), csv)
    assert.ok(csv.includes(`\n'-1+2,`), csv)
    const exported = parseCsvRecords(csv).records.map((x) => x.deviceName)
    assert.ok(exported.includes(`'=HYPERLINK("http://x","y")`), exported.join('\n'))
    assert.ok(exported.includes("'-1+2"))
    assert.ok(exported.includes("''=already quoted"))

    // deviceIDs are unique across tenants: the originals go before the copies come in
    const ids = (await t.admin.get<Devices>('/api/v1/devices')).body.items
      .filter((d) => names.includes(d.deviceName))
      .map((d) => d.id)
    assert.is(ids.length, 3)
    assert.is((await t.admin.del(`/api/v1/devices?ids=${ids.join(',')}`)).status, 204)
    const other = await t.newTenant()
    const otherProduct = (
      await other.post('/api/v1/products', { productName: 'P', cloudProtocol: 1 })
    ).body.productID
    const lines = csv.split('\r\n')
    const mine = lines.filter((l) => /HYPERLINK|'-1\+2|already quoted/.test(l))
    assert.is(mine.length, 3)
    const moved = [lines[0]!, ...mine]
      .map((l) => l.replaceAll(productID, otherProduct))
      .join('\r\n')
    const imp = await upload(other, moved)
    assert.is(imp.status, 202)
    const done = await waitTask(other, ((await imp.json()) as Wire<typeof TaskAccepted>).statusUrl)
    assert.equal(done.result, { success: 3, failed: 0, errors: [] })
    const got = (await other.get<Devices>('/api/v1/devices')).body.items.map((d) => d.deviceName)
    assert.equal(got.sort(), [...names].sort())
  },
)

transfer.run()
