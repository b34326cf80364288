/**
 * The products pages in real Chromium against the real service: an admin sets up a product without curl (the
 * product, a data point, a data stream over it, a formula metric shown on the device page, a switch app template),
 * each write checked through the API; an edit and a delete; a refused formula in an alert with the form kept; a
 * viewer without write controls; another tenant's product not found; axe-core on both pages.
 */
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mkProduct } from '../src/routes/_product-model.ts'
import type { Page as ListPage, Wire } from '../_support/wire.ts'
import type { AppTemplate } from '../../src/schemas/app-templates.ts'
import type { DataPointListItem } from '../../src/schemas/data-points.ts'
import type { DataStreamListItem } from '../../src/schemas/data-streams.ts'
import type { MetricListItem } from '../../src/schemas/metrics.ts'
import type { ProductListItem } from '../../src/schemas/products.ts'
import { allByRole, aria, axeViolations, byRole, runWithChromium, textOf } from './_browser.ts'
import { shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let foreign: Awaited<ReturnType<typeof mkProduct>>
let product: Wire<typeof ProductListItem>
let spare: Awaited<ReturnType<typeof mkProduct>>
let point: Wire<typeof DataPointListItem>
const name = `Thermo-${Date.now().toString(36)}`

const ui = suite('products pages in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 900))
  foreign = await mkProduct(await t.newTenant())
  spare = await mkProduct(t.admin)
  page.on('dialog', (d) => void d.accept())
})

ui.after(() => stopConsole(browser, t))

const test = shotCases(ui, 'products', () => page)

/** The element of that role and name inside `el`. */
async function inside(el: ElementHandle, role: string, name?: string): Promise<ElementHandle> {
  const found = await el.waitForSelector(aria(role, name), { timeout: 5000 })
  if (!found) throw new Error(`no ${role} named ${name}`)
  return found as ElementHandle
}

/** Fills the text boxes of `region` named by the keys; selects `select`'s options by value. */
async function fill(
  region: ElementHandle,
  text: Record<string, string>,
  select: Record<string, string> = {},
) {
  for (const [label, value] of Object.entries(text)) {
    const box = await inside(region, 'textbox', label)
    await box.click({ count: 3 })
    await box.type(value)
  }
  for (const [label, value] of Object.entries(select))
    await (await inside(region, 'combobox', label)).select(value)
}

/** The items of an API list (`T`: its record as the list answers it). */
const list = async <T = unknown>(path: string) => {
  const r = await t.admin.get<ListPage<T>>(`/api/v1${path}`)
  assert.is(r.status, 200, r.text)
  return r.body.items
}

/** Waits for the API list to hold `n` records and answers the first. */
const first = async <T>(path: string, n = 1) => {
  const items = await until(
    () => list<T>(path),
    (xs) => xs.length === n,
    5000,
  )
  assert.is(items.length, n, JSON.stringify(items))
  return items[0]!
}

test('/products :: an admin deletes a product, creates one through the form, lands on its page', async () => {
  await signInAdmin(page, `${t.url}/products`)
  await byRole(page, 'searchbox', 'Search products')
  assert.equal(await axeViolations(page), [])
  await (await byRole(page, 'button', `Delete ${spare.productName}`)).click()
  const gone = await until(
    async () => (await t.admin.get(`/api/v1/products/${spare.id}`)).status,
    (s) => s === 404,
    5000,
  )
  assert.is(gone, 404)
  await until(
    async () => (await allByRole(page, 'link', spare.productName)).length,
    (n) => n === 0,
  )
  assert.equal(await allByRole(page, 'link', spare.productName), [])
  const form = await byRole(page, 'form', 'New product')
  await fill(form, { 'Product name': name, Description: 'room sensors' }, { 'Cloud protocol': '5' })
  await (await inside(form, 'button', 'Create product')).click()
  await byRole(page, 'heading', name)
  product = await first<Wire<typeof ProductListItem>>(`/products?productName=${name}`)
  assert.is(product.cloudProtocol, 5)
  assert.is(product.description, 'room sensors')
  assert.is(new URL(page.url()).pathname, `/products/${product.id}`)
})

test('product page :: data point, stream over it, formula metric shown, switch template, each in the API', async () => {
  const points = await byRole(page, 'region', 'Data points')
  // the forms open on demand: none shows until its New button is pressed
  assert.equal(await allByRole(page, 'form', 'New data point'), [])
  await (await inside(points, 'button', 'New data point')).click()
  // an HTTP product is offered the common data types, not Modbus's (the API would refuse them)
  const types = await (
    await inside(points, 'combobox', 'Data type')
  ).evaluate((el) =>
    [...(el as unknown as { options: Iterable<{ text: string }> }).options].map((o) => o.text),
  )
  assert.ok(types.includes('Numeric') && types.includes('Boolean'), types.join())
  assert.not.ok(types.includes('Signed long'), types.join())
  assert.is(types.filter((x) => x === 'Boolean').length, 1)
  await fill(
    points,
    { 'Data point name': 'Temperature', 'Data point ID': 'temp', 'Unit symbol': '°C' },
    { 'Data type': '1', Transfer: '3' },
  )
  await (await inside(points, 'button', 'Add data point')).click()
  point = await first<Wire<typeof DataPointListItem>>(`/data_points?productID=${product.productID}`)
  assert.equal(
    [point.dataPointID, point.dataPointName, point.pointDataType, point.dataTransType],
    ['temp', 'Temperature', 1, 3],
  )
  assert.is(point.unitSymbol, '°C')
  await inside(points, 'cell', 'Temperature')

  const streams = await byRole(page, 'region', 'Data streams')
  await (await inside(streams, 'button', 'New data stream')).click()
  await fill(streams, { 'Stream name': 'Telemetry', Topic: 'telemetry' }, { Direction: '1' })
  await (await inside(streams, 'checkbox', 'Temperature (temp)')).click()
  await (await inside(streams, 'button', 'Add data stream')).click()
  const listed = await first<Wire<typeof DataStreamListItem>>(
    `/data_streams?productID=${product.productID}`,
  )
  const stream = (await t.admin.get(`/api/v1/data_streams/${listed.id}`)).body
  assert.equal([stream.streamName, stream.topic, stream.streamType], ['Telemetry', 'telemetry', 1])
  assert.equal(stream.dataPoints, [point.id])

  const metrics = await byRole(page, 'region', 'Metrics')
  await (await inside(metrics, 'button', 'New metric')).click()
  await fill(
    metrics,
    { 'Metric name': 'Temp °F', Formula: 'value * 1.8 + 32' },
    { 'Data point of the metric': String(point.id), 'Metric type': '1', Chart: '2' },
  )
  await (await inside(metrics, 'checkbox', 'Show on the device page')).click()
  await (await inside(metrics, 'button', 'Add metric')).click()
  const m = await first<Wire<typeof MetricListItem>>(`/metrics?productID=${product.productID}`)
  const metric = (await t.admin.get(`/api/v1/metrics/${m.id}`)).body
  assert.equal(
    [metric.metricName, metric.metricType, metric.expressions, metric.isShow, metric.chartType],
    ['Temp °F', 1, 'value * 1.8 + 32', 1, 2],
  )
  assert.is(metric.dataPointIntID, point.id)

  const templates = await byRole(page, 'region', 'App templates')
  await (await inside(templates, 'button', 'New app template')).click()
  await fill(
    templates,
    { 'Template name': 'Heater' },
    { 'Template type': '1', 'Data point of the template': String(point.id) },
  )
  await (await inside(templates, 'button', 'Add app template')).click()
  const tpl = await first<Wire<typeof AppTemplate>>(`/app_templates?productID=${product.productID}`)
  assert.equal(
    [tpl.templateName, tpl.templateType, tpl.dataPointIntID, tpl.productID],
    ['Heater', 1, point.id, product.productID],
  )
  await inside(templates, 'cell', 'Switch')
  assert.equal(await axeViolations(page), [])
})

test('a bad formula :: the API message in an alert beside the form, the form kept', async () => {
  const metrics = await byRole(page, 'region', 'Metrics')
  await (await inside(metrics, 'button', 'New metric')).click()
  await fill(metrics, { 'Metric name': 'Broken', Formula: 'value * nosuch' })
  await (await inside(metrics, 'button', 'Add metric')).click()
  const alert = await inside(metrics, 'alert')
  assert.match(await textOf(alert), /expressions: .*nosuch/)
  const kept = await inside(metrics, 'textbox', 'Formula')
  assert.is(await kept.evaluate((e: { value: string }) => e.value), 'value * nosuch')
  assert.is((await list(`/metrics?productID=${product.productID}`)).length, 1)
})

test('an aggregate metric :: its window typed (a bad one refused beside the form), what the API stores', async () => {
  const metrics = await byRole(page, 'region', 'Metrics')
  // the bad formula's form is still open: closed first
  for (const cancel of await allByRole(metrics, 'button', 'Cancel')) await cancel.click()
  await (await inside(metrics, 'button', 'New metric')).click()
  await fill(metrics, { 'Metric name': 'Busiest quarter' }, { 'Metric type': '2', Aggregate: '1' })
  await fill(metrics, { Window: 'soon' })
  await (await inside(metrics, 'button', 'Add metric')).click()
  assert.match(
    await textOf(await inside(metrics, 'alert')),
    /aggregateInterval: must be a window like 5m/,
  )
  const window = await inside(metrics, 'textbox', 'Window')
  await window.click({ count: 3 })
  await page.keyboard.press('Backspace')
  await window.type('15m')
  await (await inside(metrics, 'button', 'Add metric')).click()
  const made = await until(
    () => list<Wire<typeof MetricListItem>>(`/metrics?productID=${product.productID}`),
    (ms) => ms.some((x) => x.metricName === 'Busiest quarter'),
  )
  const id = made.find((x) => x.metricName === 'Busiest quarter')!.id
  const metric = (await t.admin.get(`/api/v1/metrics/${id}`)).body
  assert.equal([metric.metricType, metric.aggregateType, metric.aggregateInterval], [2, 1, '15m'])
  assert.is((await t.admin.del(`/api/v1/metrics?ids=${id}`)).status, 204)
})

test('edit a data point and the product, delete the template :: the API has the changes', async () => {
  const points = await byRole(page, 'region', 'Data points')
  await (await inside(points, 'button', 'Edit Temperature')).click()
  await inside(points, 'form', 'Edit data point')
  await fill(points, { 'Data point name': 'Room temperature' })
  await (await inside(points, 'button', 'Save')).click()
  await inside(points, 'cell', 'Room temperature')
  const edited = (await t.admin.get(`/api/v1/data_points/${point.id}`)).body
  assert.equal([edited.dataPointName, edited.unitSymbol], ['Room temperature', '°C'])

  await (await byRole(page, 'button', 'Edit product')).click()
  const form = await byRole(page, 'form', 'Edit product')
  await fill(form, { 'Product name': `${name}-2` })
  await (await inside(form, 'button', 'Save')).click()
  await byRole(page, 'heading', `${name}-2`)
  assert.is((await t.admin.get(`/api/v1/products/${product.id}`)).body.productName, `${name}-2`)

  const templates = await byRole(page, 'region', 'App templates')
  await (await inside(templates, 'button', 'Delete Heater')).click()
  await until(
    () => list(`/app_templates?productID=${product.productID}`),
    (xs) => xs.length === 0,
    5000,
  )
  assert.equal(await list(`/app_templates?productID=${product.productID}`), [])
  await until(
    async () => (await allByRole(templates, 'cell', 'Heater')).length,
    (n) => n === 0,
  )
  assert.equal(await allByRole(templates, 'cell', 'Heater'), [])
})

test("another tenant's product :: Not found, nothing of it shown", async () => {
  await page.goto(`${t.url}/products/${foreign.id}`)
  await byRole(page, 'heading', 'Not found.')
  // the API's 404 answer, not the shell's unknown page
  assert.match(await textOf(await byRole(page, 'alert')), /^Not found: id: not found$/)
  assert.equal(await allByRole(page, 'heading', foreign.productName), [])
})

test('a viewer :: the products and a product with its model, no write control', async () => {
  await signInViewer(page, t, `${t.url}/products`)
  await byRole(page, 'link', `${name}-2`)
  const buttons = async () => Promise.all((await allByRole(page, 'button')).map(textOf))
  assert.equal(await buttons(), ['Sign out', 'Previous', 'Next'])
  assert.equal(await allByRole(page, 'form'), [])
  await (await byRole(page, 'link', `${name}-2`)).click()
  await byRole(page, 'heading', `${name}-2`)
  await inside(await byRole(page, 'region', 'Metrics'), 'cell', 'Temp °F')
  assert.equal(await buttons(), ['Sign out'])
  assert.equal(await allByRole(page, 'textbox'), [])
})

runWithChromium(ui)
