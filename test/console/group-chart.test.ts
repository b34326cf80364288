/**
 * The group page's Chart in real Chromium against the real service: a group of three devices whose values were sent
 * through HTTP ingest; the chart drawn (pixels of the group mean's blue on its canvas), the legend naming the
 * members, the unit in the figure's name, the readout of the window under the pointer, switching the data point (a member without hum says it has no values),
 * the empty state of a group without values, a viewer seeing the same chart, another tenant's group not reachable,
 * and axe-core without serious or critical violations.
 */
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { until } from '../ingest/_mqtt.ts'
import { Client, type TestService } from '../_support/service.ts'
import type { Wire } from '../_support/wire.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { basic } from '../src/routes/_ingest.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Group } from '../../src/schemas/groups.ts'
import type { DataPoint } from '../../src/schemas/data-points.ts'
import {
  allByRole,
  axeViolations,
  bluePixels,
  byRole,
  runWithChromium,
  textOf,
} from './_browser.ts'
import { goTo, shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let temp: Wire<typeof DataPoint>
let hum: Wire<typeof DataPoint>
let group: Wire<typeof Group>
let quiet: Wire<typeof Group>
let foreign: Wire<typeof Group>
const devices: NewDevice[] = []
const tag = Date.now().toString(36)
const MIN = 60_000

const ui = suite('group chart in Chromium')

/** A group of `productID` with `members`, through the API. */
async function groupOf(c: Client, productID: string, name: string, members: NewDevice[]) {
  const r = await c.post<Wire<typeof Group>>('/api/v1/groups', { productID, groupName: name })
  assert.is(r.status, 201, r.text)
  if (members.length) {
    const m = await c.post(`/api/v1/groups/${r.body.id}/devices`, { ids: members.map((d) => d.id) })
    assert.is(m.status < 300, true, m.text)
  }
  return r.body
}

/** Sends `rows` ([minutes ago, values]) as the device, through HTTP ingest with times. */
async function ingest(d: NewDevice, rows: Array<[number, Record<string, number>]>) {
  const now = Date.now()
  const messages = rows.map(([ago, values]) => ({
    topic: 'telemetry',
    payload: {
      data_type: 'event',
      data: Object.fromEntries(
        Object.entries(values).map(([k, value]) => [k, { time: now - ago * MIN, value }]),
      ),
    },
  }))
  const r = await new Client(t.url, basic(d)).post('/api/v1/ingest', { messages })
  assert.is(r.status, 202, r.text)
}

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 1000))
  const product = await mkProduct(t.admin)
  temp = await mkPoint(t.admin, product.id, 'temp', { unitSymbol: '°C' })
  hum = await mkPoint(t.admin, product.id, 'hum')
  const label = await mkPoint(t.admin, product.id, 'label', { pointDataType: 3 })
  await mkStream(t.admin, product.productID, [temp.id, hum.id, label.id], { topic: 'telemetry' })
  for (const name of ['alpha', 'beta', 'gamma'])
    devices.push(
      await newDevice(t.admin, mqttBody(product.productID, { deviceName: `${name}-${tag}` })),
    )
  // temp of every member over the last 50 minutes; hum of alpha only
  for (const [k, d] of devices.entries())
    await ingest(
      d,
      Array.from({ length: 10 }, (_, i) => [50 - i * 5, { temp: 20 + k * 5 + (i % 3) }]),
    )
  await ingest(devices[0]!, [
    [40, { hum: 30 }],
    [20, { hum: 35 }],
    [10, { hum: 32 }],
  ])
  group = await groupOf(t.admin, product.productID, `floor-${tag}`, devices)
  quiet = await groupOf(t.admin, product.productID, `empty-${tag}`, [])
  const other = await t.newTenant()
  const theirs = await mkProduct(other)
  foreign = await groupOf(other, theirs.productID, 'theirs', [])
})

ui.after(async () => {
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'group-chart', () => page)
const chartRegion = () => byRole(page, 'region', 'Chart')

/** The names the legend lists, in order. */
async function legend(): Promise<string[]> {
  const list = await byRole(await chartRegion(), 'list', 'Legend')
  return Promise.all((await allByRole(list, 'listitem')).map((li) => textOf(li)))
}

/** Waits for the figure named `name` to have drawn (more than `least` pixels of the mean's blue); answers it. */
async function drawn(name: string, least = 50): Promise<ElementHandle> {
  const figure = await byRole(page, 'figure', name, 10_000)
  const n = await until(
    () => bluePixels(figure),
    (n) => n > least,
    5000,
  )
  assert.ok(n > least, `${n} blue pixels`)
  return figure
}

/** Clicks the range button `label` and waits until it is the one pressed. */
async function pickRange(label: string) {
  await (await byRole(await chartRegion(), 'button', label)).click()
  await until(
    () =>
      byRole(page, 'button', label).then((x) => x.evaluate((e) => e.getAttribute('aria-pressed'))),
    (v) => v === 'true',
  )
}

const names = () => devices.map((d) => d.deviceName)

test('the chart :: drawn for the first data point over the last hour, the unit in its name, the legend naming each member', async () => {
  await signInAdmin(page, `${t.url}/groups/${group.id}`)
  await byRole(page, 'heading', group.groupName)
  const region = await chartRegion()
  const select = await byRole(region, 'combobox', 'Data point')
  assert.is(await select.evaluate((e) => (e as unknown as { value: string }).value), 'temp')
  const pressed = await byRole(region, 'button', '1 h')
  assert.is(await pressed.evaluate((e) => e.getAttribute('aria-pressed')), 'true')
  const figure = await drawn(`${temp.dataPointName} (°C)`)
  assert.ok(await figure.$('canvas'), 'a canvas')
  assert.equal(await legend(), ['Group min–max', 'Group mean', ...names()])
  // the pointer over the plot reads out its window: the group's mean, min–max and count
  await (await figure.$('canvas'))!.hover()
  assert.match(
    await until(
      () => textOf(figure),
      (s) => s.includes('Group mean'),
    ),
    /\d{2}:\d{2}:00\s+Group mean [\d.]+ °C\s+\([\d.]+ – [\d.]+ °C, \d+ values?\)/,
  )
  // only numeric data points are offered, by name, in the product's order
  const options = await select.evaluate((e) =>
    [...(e as unknown as { options: Iterable<{ text: string }> }).options].map((o) => o.text),
  )
  assert.equal(options, [temp.dataPointName, hum.dataPointName])
  // the other ranges draw it too
  for (const range of ['24 h', '7 d', '30 d', '1 h']) {
    await pickRange(range)
    await drawn(`${temp.dataPointName} (°C)`, 0)
  }
  assert.equal(await axeViolations(page), [])
})

test('another data point :: hum draws its own series; the members without hum say so', async () => {
  const select = await byRole(await chartRegion(), 'combobox', 'Data point')
  await select.select('hum')
  await drawn(hum.dataPointName)
  const [a, b, c] = names()
  assert.equal(await until(legend, (l) => l.some((x) => x.includes('no values'))), [
    'Group min–max',
    'Group mean',
    a!,
    `${b} (no values)`,
    `${c} (no values)`,
  ])
  assert.equal(await axeViolations(page), [])
})

test('a group without values :: says there are no values in the range', async () => {
  await goTo(page, `/groups/${quiet.id}`)
  await byRole(page, 'heading', quiet.groupName)
  const status = await byRole(await chartRegion(), 'status', undefined, 10_000)
  assert.is(await textOf(status), 'No values in this range.')
  assert.equal(await allByRole(await chartRegion(), 'figure'), [])
  assert.equal(await axeViolations(page), [])
})

test("a viewer :: sees the chart and its legend; another tenant's group is not reachable", async () => {
  await signInViewer(page, t, `${t.url}/groups/${group.id}`)
  await byRole(page, 'heading', group.groupName)
  await drawn(`${temp.dataPointName} (°C)`)
  assert.equal(await legend(), ['Group min–max', 'Group mean', ...names()])
  assert.equal(await axeViolations(page), [])
  await goTo(page, `/groups/${foreign.id}`)
  assert.match(await textOf(await byRole(page, 'alert')), /not found/i)
  assert.equal(await allByRole(page, 'region', 'Chart'), [])
  // the API answers the page's own call for it with 404 too
  const status = await page.evaluate(async (id) => {
    const token = (globalThis as unknown as { localStorage: { getItem(k: string): string | null } })
      .localStorage
    const session = JSON.parse(token.getItem('devicecloud.session') ?? '{}') as { token?: string }
    const r = await fetch(`/api/v1/group_data?groupIntID=${id}&dataPointID=temp`, {
      headers: { authorization: `Bearer ${session.token ?? ''}` },
    })
    return r.status
  }, foreign.id)
  assert.is(status, 404)
})

runWithChromium(ui)
