/**
 * The devices list in real Chromium against the real service: create (and a refused create), edit, block, filters
 * kept in the address, delete with confirm (one and several), export and import of CSV, a viewer's page, axe-core.
 * Every write is checked through the API as well as on the page.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MqttClient } from 'mqtt'
import type { Browser, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connectDevice, end, until } from '../ingest/_mqtt.ts'
import { Client, type TestService } from '../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { basic, ingestTelemetry } from '../src/routes/_ingest.ts'
import { mqttBody, newDevice, newGateway, type NewDevice } from '../src/routes/devices-helpers.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  runWithChromium,
  selectListed,
  textOf,
} from './_browser.ts'
import { shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let lamp: NewDevice
let pump: NewDevice
let foreign: NewDevice
let productA: { productID: string; productName: string }
let productB: { productID: string; productName: string }
let client: MqttClient | undefined
const tag = Date.now().toString(36)
const made = `made-${tag}`

const ui = suite('devices list in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1400, 900))
  productA = await mkProduct(t.admin)
  productB = await mkProduct(t.admin)
  lamp = await newDevice(t.admin, mqttBody(productA.productID, { deviceName: `lamp-${tag}` }))
  pump = await newDevice(t.admin, mqttBody(productB.productID, { deviceName: `pump-${tag}` }))
  const other = await t.newTenant()
  const otherProduct = await mkProduct(other)
  foreign = await newDevice(other, mqttBody(otherProduct.productID, { deviceName: `far-${tag}` }))
  // the test reads the exported file's blob: URL, which the console's CSP (connect-src 'self') would refuse
  await page.setBypassCSP(true)
})

ui.after(async () => {
  end(client)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'devices-list', () => page)

/** The names of the rows: the table's links to a device page. */
const names = async () => {
  const links = await allByRole(await byRole(page, 'table'), 'link')
  const all = await Promise.all(
    links.map((a) => a.evaluate((e) => [e.getAttribute('href') ?? '', e.textContent ?? ''])),
  )
  return all.filter(([href]) => /^\/devices\/\d+$/.test(href)).map(([, text]) => text!)
}
const namesUntil = (ok: (n: string[]) => boolean) => until(names, ok, 5000)
/** Waits until the table's device links are `want`, in that order (a change re-renders after its answer). */
const namesAre = async (want: string[]) =>
  assert.equal(await namesUntil((n) => n.join('\n') === want.join('\n')), want)
/** The text of a select's chosen option. */
const selected = (el: unknown) => {
  const s = el as { selectedIndex: number; options: Array<{ text: string }> }
  return s.options[s.selectedIndex]?.text ?? ''
}
/** The texts of a select's options. */
const optionTexts = (el: unknown) =>
  [...(el as { options: Iterable<{ text: string }> }).options].map((o) => o.text)
const rowText = async (name: string) =>
  textOf((await (await byRole(page, 'link', name)).evaluateHandle((a) => a.closest('tr'))) as never)
const byName = async (name: string) =>
  (await t.admin.get(`/api/v1/devices?deviceName=${encodeURIComponent(name)}`)).body.items

test('create through the form :: a refused create shows the API error; then the API has it', async () => {
  await signInAdmin(page, `${t.url}/devices`)
  await (await byRole(page, 'button', 'Create device')).click()
  const dialog = await byRole(page, 'dialog', 'Create device')
  await (await byRole(dialog as never, 'textbox', 'Device name')).type(made)
  await selectListed(await byRole(dialog as never, 'combobox', 'Product'), productA.productID)
  const id = await byRole(dialog as never, 'textbox', 'Device ID (generated when empty)')
  await id.type('no/slash')
  await (await byRole(dialog as never, 'button', 'Save')).click()
  const alert = await byRole(dialog as never, 'alert')
  assert.match(await textOf(alert), /deviceID: 1 to 64 characters/)
  assert.equal(await byName(made), [])
  assert.equal(await axeViolations(page), [])

  await id.click({ count: 3 })
  await id.press('Backspace')
  await (await byRole(dialog as never, 'button', 'Save')).click()
  await byRole(page, 'link', made)
  assert.equal(await allByRole(page, 'dialog'), [])
  const [d] = await byName(made)
  assert.is(d.productID, productA.productID)
  assert.is(d.authType, 1)
  assert.is(d.upLinkSystem, 1)
})

test('edit and block :: the API has the new description, then blocked 1; the row says Blocked', async () => {
  await (await byRole(page, 'button', `Edit ${made}`)).click()
  const dialog = await byRole(page, 'dialog', `Edit device ${made}`)
  await (await byRole(dialog as never, 'textbox', 'Description')).type('by the door')
  await (await byRole(dialog as never, 'textbox', 'Location')).type('Hall 2')
  await (await byRole(dialog as never, 'button', 'Save')).click()
  const [d] = await until(
    () => byName(made),
    (x) => x[0]?.description === 'by the door',
  )
  assert.is(d.location, 'Hall 2')

  await (await byRole(page, 'button', `Block ${made}`)).click()
  await byRole(page, 'button', `Unblock ${made}`)
  assert.is((await byName(made))[0].blocked, 1)
  assert.match(await rowText(made), /Blocked/)
})

test('product and status filters, sort :: the rows the API selects; kept in the address over a reload', async () => {
  await selectListed(await byRole(page, 'combobox', 'Product'), productA.productID)
  assert.equal(
    (
      await namesUntil((n) => [...n].sort().join() === [lamp.deviceName, made].sort().join())
    ).sort(),
    [lamp.deviceName, made].sort(),
  )
  client = await connectDevice(t, lamp)
  await until(
    async () => (await t.admin.get(`/api/v1/devices/${lamp.id}`)).body.deviceStatus,
    (s) => s === 1,
  )
  await (await byRole(page, 'combobox', 'Status')).select('online')
  await namesAre([lamp.deviceName])
  assert.match(await rowText(lamp.deviceName), /Online/)
  await (await byRole(page, 'combobox', 'Status')).select('offline')
  await namesAre([made])

  await page.reload()
  await namesAre([made])
  const search = new URL(page.url()).searchParams
  assert.is(search.get('productID'), productA.productID)
  assert.is(search.get('status'), 'offline')
  assert.is(
    await (await byRole(page, 'combobox', 'Status')).evaluate((s: { value: string }) => s.value),
    'offline',
  )

  await (await byRole(page, 'combobox', 'Status')).select('')
  await (await byRole(page, 'combobox', 'Product')).select('')
  await (await byRole(page, 'combobox', 'Sort')).select('name:desc')
  const all = [lamp.deviceName, pump.deviceName, made]
  await namesAre([...all].sort().reverse())
  assert.equal(await axeViolations(page), [])
})

test('delete with confirm :: dismissed keeps the device; two selected and accepted are gone', async () => {
  const answers = [false, true]
  const asked: string[] = []
  const onDialog = (d: import('puppeteer-core').Dialog) => {
    asked.push(d.message())
    void (answers.shift() ? d.accept() : d.dismiss())
  }
  page.on('dialog', onDialog)
  try {
    await (await byRole(page, 'button', `Delete ${pump.deviceName}`)).click()
    await until(
      async () => asked.length,
      (n) => n === 1,
    )
    assert.is((await t.admin.get(`/api/v1/devices/${pump.id}`)).status, 200)

    await (await byRole(page, 'checkbox', `Select ${pump.deviceName}`)).click()
    await (await byRole(page, 'checkbox', `Select ${made}`)).click()
    await (await byRole(page, 'button', 'Delete selected (2)')).click()
    await namesAre([lamp.deviceName])
    assert.match(asked[1]!, new RegExp(`${pump.deviceName}, ${made}|${made}, ${pump.deviceName}`))
    assert.is((await t.admin.get(`/api/v1/devices/${pump.id}`)).status, 404)
    assert.equal(await byName(made), [])
  } finally {
    page.off('dialog', onDialog)
  }
})

test("export and import :: the CSV holds the tenant's devices; an import shows created and failed rows", async () => {
  await (await byRole(page, 'button', 'Export CSV')).click()
  const link = await byRole(page, 'link', 'Download CSV (1 device)', 10000)
  const csv = await link.evaluate(async (a) =>
    (await fetch((a as unknown as { href: string }).href)).text(),
  )
  const [header, ...rows] = csv.trim().split(/\r?\n/)
  assert.match(header!, /^deviceName,deviceID,productID,/)
  assert.is(rows.length, 1)
  assert.ok(rows[0]!.startsWith(`${lamp.deviceName},${lamp.deviceID},${productA.productID},`))
  assert.not.match(csv, foreign.deviceName)

  const dir = mkdtempSync(join(tmpdir(), 'devlist-'))
  const file = join(dir, 'devices.csv')
  writeFileSync(
    file,
    'deviceName,productID,deviceType,upLinkSystem,cloudProtocol,authType\n' +
      `imported-${tag},${productA.productID},1,1,1,1\n` +
      `refused-${tag},no-such-product,1,1,1,1\n`,
  )
  const input = await page.$('input[type=file]')
  await input!.uploadFile(file)
  const status = await byRole(page, 'status', undefined, 10000)
  assert.is(await textOf(status), 'Imported: 1 created, 1 failed.')
  const errors = await byRole(page, 'table', 'Rows not imported')
  assert.match(await textOf(errors), /^3\tproductID\t/m)
  await byRole(page, 'link', `imported-${tag}`)
  assert.is((await byName(`imported-${tag}`)).length, 1)
  assert.equal(await byName(`refused-${tag}`), [])
})

test('gateways :: listed with their device count; the count leads to the devices behind it', async () => {
  const gw = await newGateway(t.admin, productB.productID)
  const child = await newDevice(
    t.admin,
    mqttBody(productB.productID, { deviceName: `child-${tag}`, upLinkSystem: 2, gateway: gw.id }),
  )
  await (await byRole(page, 'combobox', 'Show')).select('gateways')
  const count = await byRole(page, 'link', `1 devices of ${gw.gatewayName}`)
  await count.click()
  await namesAre([child.deviceName])
  assert.is(new URL(page.url()).searchParams.get('gateway'), String(gw.id))
  await byRole(page, 'link', `Devices behind ${gw.gatewayName}`)
  assert.match(await rowText(child.deviceName), new RegExp(gw.gatewayName))
  await (await byRole(page, 'button', 'Show all devices')).click()
  await namesUntil((n) => n.length === 3)
})

test('gateways first-class :: a gateway made in the console; a device put behind it chosen by name', async () => {
  const gwName = `gw-made-${tag}`
  await (await byRole(page, 'combobox', 'Show')).select('gateways')
  await (await byRole(page, 'button', 'Create gateway')).click()
  const dialog = (await byRole(page, 'dialog', 'Create gateway')) as never
  await (await byRole(dialog, 'textbox', 'Device name')).type(gwName)
  await selectListed(await byRole(dialog, 'combobox', 'Product'), productA.productID)
  await (await byRole(dialog, 'combobox', 'Gateway protocol')).select('1')
  await (await byRole(dialog, 'button', 'Save')).click()
  await byRole(page, 'link', gwName)
  const made = await t.admin.get(`/api/v1/gateways?gatewayName=${gwName}`)
  assert.is(made.body.items.length, 1, made.text)
  const gw = made.body.items[0]
  assert.is(gw.productID, productA.productID)

  const child = `behind-${tag}`
  await (await byRole(page, 'combobox', 'Show')).select('')
  await (await byRole(page, 'button', 'Create device')).click()
  const form = (await byRole(page, 'dialog', 'Create device')) as never
  await (await byRole(form, 'textbox', 'Device name')).type(child)
  await selectListed(await byRole(form, 'combobox', 'Product'), productA.productID)
  await (await byRole(form, 'combobox', 'Connects via')).select('2')
  await (await byRole(form, 'searchbox', 'Search gateways by name')).type('gw-made')
  const choose = await byRole(form, 'combobox', 'Choose a gateway')
  await until(
    () =>
      choose.evaluate((el) =>
        [...(el as unknown as { options: Iterable<{ text: string }> }).options].map((o) => o.text),
      ),
    (names) => names.includes(gwName),
  )
  assert.equal(await page.$$(`dialog input[type=number]`), [], 'no record id is asked for')
  assert.equal(await axeViolations(page), [])
  await choose.select(String(gw.id))
  await (await byRole(form, 'button', 'Save')).click()
  await byRole(page, 'link', child)
  const [d] = await byName(child)
  assert.is(d.gateway, gw.id)
  assert.is(d.upLinkSystem, 2)
  await byRole(page, 'link', `Devices behind ${gwName}`)
  assert.match(await rowText(child), new RegExp(gwName))
})

test('moving a device :: its Edit shows its gateway by name; then behind a parent device, then direct', async () => {
  const gw = await newGateway(t.admin, productA.productID)
  const child = await newDevice(
    t.admin,
    mqttBody(productA.productID, { deviceName: `mover-${tag}`, upLinkSystem: 2, gateway: gw.id }),
  )
  await page.goto(`${t.url}/devices?productID=${productA.productID}`)
  await (await byRole(page, 'button', `Edit ${child.deviceName}`)).click()
  const dialog = (await byRole(page, 'dialog', `Edit device ${child.deviceName}`)) as never
  assert.is(await (await byRole(dialog, 'combobox', 'Connects via')).evaluate(selected), 'Gateway')
  const chooseGateway = await byRole(dialog, 'combobox', 'Choose a gateway')
  await until(
    () => chooseGateway.evaluate(selected),
    (name) => name === gw.gatewayName,
    5000,
  )
  // to a parent device, chosen by name (the device itself is not offered)
  await (await byRole(dialog, 'combobox', 'Connects via')).select('3')
  await (await byRole(dialog, 'searchbox', 'Search parent devices by name')).type('lamp-')
  const chooseParent = await byRole(dialog, 'combobox', 'Choose a parent device')
  const offered = await until(
    () => chooseParent.evaluate(optionTexts),
    (names) => names.includes(lamp.deviceName),
    5000,
  )
  assert.not.ok(offered.includes(child.deviceName), offered.join())
  await chooseParent.select(String(lamp.id))
  await (await byRole(dialog, 'button', 'Save')).click()
  const [moved] = await until(
    () => byName(child.deviceName),
    (x) => x[0]?.upLinkSystem === 3,
  )
  assert.equal([moved.parentDevice, moved.gateway], [lamp.id, null])

  // on its own page: Edit, Connects via Cloud, Save
  await page.goto(`${t.url}/devices/${child.id}`)
  await (await byRole(page, 'button', 'Edit')).click()
  const form = (await byRole(page, 'form', 'Edit device')) as never
  const chooseOnPage = await byRole(form, 'combobox', 'Choose a parent device')
  await until(
    () => chooseOnPage.evaluate(selected),
    (name) => name === lamp.deviceName,
    5000,
  )
  await (await byRole(form, 'combobox', 'Connects via')).select('1')
  await (await byRole(form, 'button', 'Save')).click()
  const [direct] = await until(
    () => byName(child.deviceName),
    (x) => x[0]?.upLinkSystem === 1,
  )
  assert.equal([direct.parentDevice, direct.gateway], [null, null])
  assert.equal(await axeViolations(page), [])
})

test('value columns :: a product’s data points as columns with units, live, kept per product', async () => {
  const product = await mkProduct(t.admin)
  const temp = await mkPoint(t.admin, product.id, 'temp', { unitSymbol: '°C' })
  const hum = await mkPoint(t.admin, product.id, 'hum')
  await mkStream(t.admin, product.productID, [temp.id, hum.id], { topic: 'telemetry' })
  const meter = await newDevice(
    t.admin,
    mqttBody(product.productID, { deviceName: `meter-${tag}`, softVersion: '1.2.0' }),
  )
  const meterClient = new Client(t.url, basic(meter))
  assert.is((await ingestTelemetry(meterClient, { temp: 21.5, hum: 40 })).status, 202)
  await page.goto(`${t.url}/devices?productID=${product.productID}`)
  await byRole(page, 'link', meter.deviceName)
  await (await page.waitForSelector('details.columns-chooser summary'))!.click()
  await (await byRole(page, 'checkbox', 'Firmware version')).click()
  await (await byRole(page, 'checkbox', `${temp.dataPointName} (°C)`)).click()
  await byRole(page, 'columnheader', `${temp.dataPointName} (°C)`)
  assert.match(
    await until(
      () => rowText(meter.deviceName),
      (s) => /21\.5 °C/.test(s),
      5000,
    ),
    /1\.2\.0.*21\.5 °C/s,
  )
  assert.equal(await allByRole(page, 'columnheader', hum.dataPointName), [], 'hum was not chosen')
  // a new value shows without a reload (the stream's telemetry)
  assert.is((await ingestTelemetry(meterClient, { temp: 23.25 })).status, 202)
  await until(
    () => rowText(meter.deviceName),
    (s) => /23\.25 °C/.test(s),
    5000,
  )
  // kept for the product: a reload shows the same columns; another product shows none of them
  await page.reload()
  await byRole(page, 'columnheader', `${temp.dataPointName} (°C)`)
  await page.goto(`${t.url}/devices?productID=${productA.productID}`)
  await byRole(page, 'link', lamp.deviceName)
  assert.equal(await allByRole(page, 'columnheader', 'Firmware version'), [])
  assert.equal(await axeViolations(page), [])
})

test('a viewer :: rows and filters, no write control, axe clean', async () => {
  await signInViewer(page, t, `${t.url}/devices`)
  await byRole(page, 'link', lamp.deviceName)
  const buttons = await Promise.all((await allByRole(page, 'button')).map(textOf))
  assert.equal(buttons, ['Sign out', 'Export CSV', 'Previous', 'Next'])
  assert.equal(await allByRole(page, 'checkbox'), [])
  assert.is(await page.$('input[type=file]'), null)
  await byRole(page, 'combobox', 'Product')
  assert.equal(await axeViolations(page), [])
})

runWithChromium(ui)
