/**
 * The device page beyond charts and console, in real Chromium against the real service with real MQTT clients:
 * Edit and Block (asserted through the API), the Connection card (the token for an admin, none anywhere for a
 * viewer; its copied mosquitto_pub line run by the real mosquitto_pub stores a value), the connection log tailing
 * live, a gateway page listing its child, a queued command canceled from the page, axe-core.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { MqttClient } from 'mqtt'
import type { Browser, HTTPResponse, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connectDevice, end, until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import {
  mqttBody,
  newDevice,
  newGateway,
  type NewDevice,
  type NewGateway,
} from '../src/routes/devices-helpers.ts'
import type { Wire } from '../_support/wire.ts'
import type { Device } from '../../src/schemas/devices.ts'
import type { LatestValues } from '../../src/schemas/ingest.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  matchesSoon,
  runWithChromium,
  textBecomes,
  textOf,
  type InPage,
} from './_browser.ts'
import { shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let device: NewDevice
let gateway: NewGateway
let child: NewDevice
let foreignGateway: NewGateway
const clients: MqttClient[] = []

const ui = suite('device page: edit, connection, logs, commands in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 1000))
  const product = await mkProduct(t.admin)
  const temp = await mkPoint(t.admin, product.id, 'temp')
  await mkStream(t.admin, product.productID, [temp.id], { topic: 'telemetry' })
  device = await newDevice(t.admin, mqttBody(product.productID))
  gateway = await newGateway(t.admin, product.productID)
  child = await newDevice(
    t.admin,
    mqttBody(product.productID, { upLinkSystem: 2, gateway: gateway.id }),
  )
  const other = await t.newTenant()
  foreignGateway = await newGateway(other, (await mkProduct(other)).productID)
  await browser
    .defaultBrowserContext()
    .overridePermissions(t.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write'])
  page.on('dialog', (d) => void d.accept())
  await signInAdmin(page, `${t.url}/`)
})

ui.after(async () => {
  clients.forEach(end)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'device-page-more', () => page)

const apiDevice = async () =>
  (await t.admin.get<Wire<typeof Device>>(`/api/v1/devices/${device.id}`)).body
const rowsOf = async (table: string) =>
  Promise.all(
    (await allByRole(await byRole(page, 'table', table), 'row')).slice(1).map((r) => textOf(r)),
  )

test('Edit :: the form saves name and description (the API has them); a refused name shows the API message', async () => {
  await page.goto(`${t.url}/devices/${device.id}`)
  await (await byRole(page, 'button', 'Edit')).click()
  const form = await byRole(page, 'form', 'Edit device')
  const name = await byRole(form, 'textbox', 'Name')
  await name.click({ count: 3 })
  await name.type('x'.repeat(51))
  await (await byRole(form, 'button', 'Save')).click()
  assert.match(await textOf(await byRole(page, 'alert')), /deviceName/)
  assert.equal(await axeViolations(page), [], 'the open form and its alert')
  await name.click({ count: 3 })
  await name.type('boiler-room')
  await (await byRole(form, 'textbox', 'Description')).type('north wall')
  await (await byRole(form, 'button', 'Save')).click()
  await byRole(page, 'heading', 'boiler-room')
  const d = await apiDevice()
  assert.equal([d.deviceName, d.description], ['boiler-room', 'north wall'])
  assert.equal(await allByRole(page, 'form', 'Edit device'), [])
})

test('Block / Unblock :: after the confirm the API says blocked 1, then 0', async () => {
  await (await byRole(page, 'button', 'Block')).click()
  await byRole(page, 'button', 'Unblock')
  assert.is((await apiDevice()).blocked, 1)
  await (await byRole(page, 'button', 'Unblock')).click()
  await byRole(page, 'button', 'Block')
  assert.is((await apiDevice()).blocked, 0)
})

test('Connection :: the admin sees the token; the copied mosquitto_pub line, run, stores its value live on the page', async () => {
  const region = await byRole(page, 'region', 'Connection')
  assert.ok((await textOf(region)).includes(device.token), 'the token is shown')
  await (await byRole(region, 'button', 'Copy mosquitto_pub')).click()
  const statuses = async () => Promise.all((await allByRole(region, 'status')).map(textOf))
  assert.ok((await until(statuses, (s) => s.includes('Copied'), 3000)).includes('Copied'))
  const line = await page.evaluate(() => (globalThis as InPage).navigator.clipboard.readText())
  assert.match(line, new RegExp(`^mosquitto_pub .*-P ${device.token} .*-t \\S+/telemetry -m`))
  await promisify(execFile)('sh', ['-c', line], { timeout: 10_000 })
  const latest = await byRole(page, 'region', 'Latest values')
  await matchesSoon(() => textOf(latest), /21\.5/)
  // the Events tab (shown first) tails the uplink messages live too
  const events = await until(
    () => rowsOf('Events'),
    (r) => r.length > 0,
    5000,
  )
  assert.match(events[0]!, /\{"temp":21\.5\}/)
  const api = await t.admin.get<Wire<typeof LatestValues>>(`/api/v1/devices/${device.id}/latest`)
  assert.equal(
    api.body.map((r) => r.value),
    [21.5],
  )
})

test('Connection log :: the device connecting appears without a reload', async () => {
  await (await byRole(page, 'tab', 'Connection log')).click()
  // mosquitto_pub's connection of the case before is there already (newest first: its Offline on top)
  const before = await until(
    () => rowsOf('Connection log'),
    (r) => r.length >= 2,
    5000,
  )
  assert.match(before[0]!, /Offline/)
  clients.push(await connectDevice(t, device))
  const rows = await until(
    () => rowsOf('Connection log'),
    (r) => r.length > before.length,
    5000,
  )
  assert.is(rows.length, before.length + 1)
  assert.match(rows[0]!, /Online\s+127\.0\.0\.1/)
  assert.equal(await axeViolations(page), [])
})

test('Cancel :: a command queued for the offline device, canceled from the page, ends canceled', async () => {
  end(clients.pop())
  await until(
    async () => (await apiDevice()).deviceStatus,
    (s) => s === 0,
    5000,
  )
  const console_ = await byRole(page, 'region', 'Console')
  await (await byRole(console_, 'textbox', 'Payload')).type('{"led":"off"}')
  await (await byRole(console_, 'spinbutton', 'TTL (s)')).type('600')
  await (await byRole(console_, 'button', 'Send command')).click()
  const status = await byRole(page, 'status', 'Command status')
  await textBecomes(status, 'Queued')
  const logs = await t.admin.get(`/api/v1/devices/${device.id}/control_logs`)
  const taskID = logs.body.items[0].taskID
  await (await byRole(page, 'button', `Cancel command ${taskID}`)).click()
  await until(
    () => textOf(status),
    (s) => s === 'Canceled',
    5000,
  )
  const after = await t.admin.get(`/api/v1/devices/${device.id}/control_logs?taskID=${taskID}`)
  assert.is(after.body.items[0].commandStatus, 'canceled')
  assert.equal(await allByRole(page, 'button', `Cancel command ${taskID}`), [])
})

test('Gateway :: its page lists the child, linked to its page; another tenant’s gateway is not found', async () => {
  await page.goto(`${t.url}/gateways/${gateway.id}`)
  await byRole(page, 'heading', gateway.gatewayName)
  await byRole(page, 'region', 'Connection')
  // the sub-device list loads after the region is drawn: wait for its rows, then there is exactly one
  const children = await until(
    () => rowsOf('Sub-devices'),
    (r) => r.length > 0,
    5000,
  )
  assert.is(children.length, 1)
  assert.equal(await allByRole(page, 'link', device.deviceName), [])
  assert.equal(await axeViolations(page), [])
  await (await byRole(page, 'link', child.deviceName)).click()
  await byRole(page, 'heading', child.deviceName)
  assert.is(new URL(page.url()).pathname, `/devices/${child.id}`)
  await byRole(page, 'link', gateway.gatewayName)
  await page.goto(`${t.url}/gateways/${foreignGateway.id}`)
  await byRole(page, 'heading', 'Not found.')
})

test('a viewer :: no Edit, Block or Cancel; no token in the page or in any answer it read', async () => {
  await signInViewer(page, t)
  const bodies: Promise<string>[] = []
  const onResponse = (r: HTTPResponse) => {
    // every API answer but the event stream (which never ends; it carries no device record)
    const url = r.url()
    // a body Chromium dropped (a read the page left behind when it moved on) never comes: not waited for past 5 s
    if (url.includes('/api/v1/') && !url.includes('/events/stream'))
      bodies.push(
        Promise.race([
          r.text().catch(() => ''),
          new Promise<string>((resolve) => setTimeout(() => resolve(''), 5000)),
        ]),
      )
  }
  page.on('response', onResponse)
  await page.goto(`${t.url}/devices/${device.id}`)
  const region = await byRole(page, 'region', 'Connection')
  await until(
    () => textOf(region),
    (s) => s.includes('mosquitto_pub'),
    5000,
  )
  assert.match(await textOf(region), /-P '<token>'/)
  await (await byRole(page, 'tab', 'Control logs')).click()
  await byRole(page, 'table', 'Control logs')
  page.off('response', onResponse)
  for (const name of ['Edit', 'Block', 'Unblock', 'Copy Token', 'Send command'])
    assert.equal(await allByRole(page, 'button', name), [], name)
  const texts = await Promise.all(bodies)
  assert.ok(texts.length >= 4, `${texts.length} answers`)
  for (const s of [...texts, await page.content()])
    assert.not.ok(s.includes(device.token), 'the token reached the viewer')
  assert.equal(await axeViolations(page), [])
})

runWithChromium(ui)
