/**
 * The console in real Chromium against a service serving Variant B's shapes (API_VARIANT=B): the pages, written
 * against Variant A, work through the adapter of src/console/api/variant.ts. Data is set up with Variant B's bodies;
 * a real MQTT device goes online, publishes values (latest, chart), answers a command sent from the composer and
 * raises an alert acknowledged on /alerts; the devices list's stateDelta filter and a device's State region; a viewer
 * and another tenant's device; axe-core on each page.
 */
import type { MqttClient } from 'mqtt'
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  answerCommand,
  collectCommands,
  commandIn,
  connectDevice,
  end,
  fullTopic,
  until,
  type Command,
} from '../ingest/_mqtt.ts'
import type { Client, TestService } from '../_support/service.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import { created, kits, type DeviceB } from '../src/routes/_variant.ts'
import type { Wire } from '../_support/wire.ts'
import type { AlertRule } from '../../src/schemas/alert-rules.ts'
import type { DataPoint } from '../../src/schemas/data-points.ts'
import type { DataStream } from '../../src/schemas/data-streams.ts'
import {
  allByRole,
  axeViolations,
  bluePixels,
  byRole,
  matchesSoon,
  rowSoon,
  rowWith,
  runWithChromium,
  textBecomes,
  textOf,
} from './_browser.ts'
import {
  searchDevices,
  shotCases,
  signInAdmin,
  signInViewer,
  startConsole,
  stopConsole,
} from './_setup.ts'

const B = kits.B

let t: TestService
let browser: Browser
let page: Page
let devices: DeviceB[] = []
let foreign: DeviceB
let stream: Wire<typeof DataStream>
let temp: Wire<typeof DataPoint>
let rule: Wire<typeof AlertRule>
let mqtt: MqttClient | undefined
const got: Command[] = []

const ui = suite('console under API_VARIANT=B in Chromium')

/** A Variant B product and its devices (B bodies), with a numeric data point `temp` on stream `telemetry`. */
async function world(c: Client, names: string[]) {
  const product = await created(c, '/api/v1/products', B.productBody())
  const point = await mkPoint(c, product.id, 'temp')
  const s = await mkStream(c, product.productID, [point.id], { topic: 'telemetry' })
  const list: DeviceB[] = []
  for (const deviceName of names)
    list.push(
      await created<DeviceB>(c, '/api/v1/devices', B.deviceBody(product.productID, { deviceName })),
    )
  return { product, point, stream: s, devices: list }
}

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 900, B.env))
  const tag = Date.now().toString(36)
  const w = await world(t.admin, [`alpha-${tag}`, `beta-${tag}`])
  ;({ devices, stream, point: temp } = w)
  const r = await t.admin.post('/api/v1/alert_rules', {
    ruleName: `hot-${tag}`,
    productID: w.product.productID,
    condition: 'temp > 80',
    alertSeverity: 1,
  })
  assert.is(r.status, 201, r.text)
  rule = r.body
  foreign = (await world(await t.newTenant(), [`gamma-${tag}`])).devices[0]!
})

ui.after(async () => {
  end(mqtt)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'variant-b', () => page)

const rowText = async (name: string) =>
  textOf(
    (await (
      await byRole(page, 'link', name)
    ).evaluateHandle((a) => a.closest('tr'))) as ElementHandle,
  )

test('index.html :: names Variant B; the API answers B shapes (status, no deviceStatus)', async () => {
  const r = await t.anon.call('GET', '/devices', undefined, { accept: 'text/html' })
  assert.ok(r.text.includes('<meta name="devicecloud-api-variant" content="B">'), r.text)
  const d = (await t.admin.get(`/api/v1/devices/${devices[0]!.id}`)).body
  assert.equal([d.status, 'deviceStatus' in d], [0, false])
})

test("/devices :: the tenant's 2 devices Offline (not another tenant's); search narrows; axe clean", async () => {
  await signInAdmin(page, `${t.url}/devices`)
  await byRole(page, 'table')
  for (const d of devices) assert.match(await rowText(d.deviceName), /\bOffline\b/)
  assert.equal(await allByRole(page, 'link', foreign.deviceName), [])
  assert.match(await rowText(devices[0]!.deviceName), new RegExp(devices[0]!.productName))
  assert.equal(await axeViolations(page), [])
  await searchDevices(page, 'beta', devices[0]!.deviceName, devices[1]!.deviceName)
})

test('a device connects over MQTT :: its row says Online within 5 s, live', async () => {
  mqtt = await connectDevice(t, devices[1]!)
  collectCommands(mqtt, got)
  await matchesSoon(() => rowText(devices[1]!.deviceName), /\bOnline\b/)
  // read again: the API's `status` shown as Online, not only the live event
  await page.reload()
  await matchesSoon(() => rowText(devices[1]!.deviceName), /\bOnline\b/)
})

test('device page :: Info Online and MQTT, a published value in Latest values and drawn; axe clean', async () => {
  await (await byRole(page, 'link', devices[1]!.deviceName)).click()
  await byRole(page, 'heading', devices[1]!.deviceName)
  const info = await textOf(await byRole(page, 'region', 'Info'))
  assert.match(info, /\bOnline\b/)
  assert.match(info, /\bMQTT\b/)
  const region = await byRole(page, 'region', 'Latest values')
  await mqtt!.publishAsync(
    await fullTopic(t, devices[1]!, stream.topic),
    JSON.stringify({ temp: 21.75 }),
    { qos: 1 },
  )
  await matchesSoon(() => textOf(region), /21\.75/)
  const figure = await byRole(page, 'figure', temp.dataPointName)
  const n = await until(
    () => bluePixels(figure),
    (n) => n > 20,
    5000,
  )
  assert.ok(n > 20, `${n} blue pixels`)
  assert.equal(await axeViolations(page), [])
})

test('Send command :: B body (deviceID) reaches the device, it answers, the status says succeeded', async () => {
  const region = await byRole(page, 'region', 'Console')
  await (await byRole(region, 'textbox', 'Payload')).type('{"led":"on"}')
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/device_publish'))
  await (await byRole(page, 'button', 'Send command')).click()
  assert.equal(JSON.parse((await sent).postData()!), {
    payload: { led: 'on' },
    qos: 1,
    deviceID: devices[1]!.deviceID,
  })
  const request = await commandIn(got, (m) => m.data?.led === 'on')
  assert.is(request?.data_type, 'request')
  await answerCommand(mqtt!, await fullTopic(t, devices[1]!, stream.topic), request!.task_id)
  await textBecomes(await byRole(page, 'status', 'Command status'), 'Succeeded')
  const logs = await t.admin.get(`/api/v1/devices/${devices[1]!.id}/control_logs`)
  assert.is(logs.body.meta.count, 1)
  assert.equal(await axeViolations(page), [])
})

test('a value over the rule :: Urgent row on /alerts; Acknowledge shows Yes and the API has ackAt', async () => {
  await mqtt!.publishAsync(
    await fullTopic(t, devices[1]!, stream.topic),
    JSON.stringify({ temp: 95 }),
    { qos: 1 },
  )
  await (await byRole(page, 'link', 'Alerts')).click()
  const row = await rowSoon(page, 'Current', devices[1]!.deviceName, 8000)
  assert.ok(row, 'an alert row')
  assert.match(await textOf(row), /\bUrgent\b/)
  assert.equal(await axeViolations(page), [])
  await (await row.waitForSelector('::-p-aria([role="button"][name="Acknowledge"])'))!.click()
  await matchesSoon(
    async () => textOf((await rowWith(page, 'Current', devices[1]!.deviceName))!),
    /\bYes\b/,
  )
  const [a] = (await t.admin.get(`/api/v1/current_alerts?ruleID=${rule.id}`)).body.items
  assert.ok(a.ackAt, 'ackAt set')
})

test("a command to a blocked device :: refused, the API's message in an alert", async () => {
  const r = await t.admin.put(`/api/v1/devices/${devices[0]!.id}`, { blocked: 1 })
  assert.is(r.status, 200, r.text)
  await page.goto(`${t.url}/devices/${devices[0]!.id}`)
  const region = await byRole(page, 'region', 'Console')
  await (await byRole(region, 'textbox', 'Payload')).type('{"led":"off"}')
  await (await byRole(page, 'button', 'Send command')).click()
  assert.match(await textOf(await byRole(region as never, 'alert')), /the device is blocked/)
  assert.is(
    (await t.admin.get(`/api/v1/devices/${devices[0]!.id}/control_logs`)).body.meta.count,
    0,
  )
})

test("another tenant's device page :: Not found", async () => {
  await page.goto(`${t.url}/devices/${foreign.id}`)
  await byRole(page, 'heading', 'Not found.')
  assert.equal(await allByRole(page, 'heading', foreign.deviceName), [])
})

test('stateDelta under B :: the pending device marked; the State filter (stateDelta=1) lists only it; its State region', async () => {
  const pending = devices[1]!
  const r = await t.admin.patch(`/api/v1/devices/${pending.id}/state`, { desired: { mode: 'eco' } })
  assert.is(r.status, 200, r.text)
  await page.goto(`${t.url}/devices`)
  await matchesSoon(() => rowText(pending.deviceName), /Pending state/)
  assert.not.match(await rowText(devices[0]!.deviceName), /Pending state/)
  const asked = page.waitForRequest((q) => /\/api\/v1\/devices\?.*stateDelta=1/.test(q.url()))
  await (await byRole(page, 'combobox', 'State')).select('1')
  await asked
  await until(
    () => allByRole(page, 'link', devices[0]!.deviceName),
    (l) => l.length === 0,
  )
  assert.equal(await allByRole(page, 'link', devices[0]!.deviceName), [])
  assert.is(new URL(page.url()).searchParams.get('stateDelta'), '1')
  await (await byRole(page, 'link', pending.deviceName)).click()
  await matchesSoon(async () => textOf(await byRole(page, 'region', 'State')), /1 key pending/)
  assert.equal(await axeViolations(page), [])
})

test('a viewer :: the devices and a device page, no write control', async () => {
  await signInViewer(page, t, `${t.url}/devices`)
  await (await byRole(page, 'link', devices[1]!.deviceName)).click()
  await byRole(page, 'heading', devices[1]!.deviceName)
  await byRole(page, 'region', 'Charts')
  assert.equal(await allByRole(page, 'region', 'Console'), [])
  assert.equal(await allByRole(page, 'button', 'Send command'), [])
})

runWithChromium(ui)
