/**
 * The device page's Charts and Console regions in real Chromium against the real service, with a real MQTT
 * device: uPlot charts of its numeric data points, the range buttons, a command followed live to `succeeded`, an
 * app template's switch, a viewer without the Console, axe-core.
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
  sleep,
  until,
  type Command,
} from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Wire } from '../_support/wire.ts'
import type { DataPoint } from '../../src/schemas/data-points.ts'
import type { DataStream } from '../../src/schemas/data-streams.ts'
import {
  allByRole,
  axeViolations,
  bluePixels,
  byRole,
  runWithChromium,
  textBecomes,
  textOf,
} from './_browser.ts'
import {
  shotCases,
  signInAdmin,
  signInViewer,
  startConsole,
  stopConsole,
  switchTemplate,
} from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let device: NewDevice
let temp: Wire<typeof DataPoint>
let hum: Wire<typeof DataPoint>
let stream: Wire<typeof DataStream>
let on: Wire<typeof DataPoint>
let mqtt: MqttClient
const got: Command[] = []

const ui = suite('device page in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 1000))
  const product = await mkProduct(t.admin)
  temp = await mkPoint(t.admin, product.id, 'temp', { unitSymbol: '°C' })
  hum = await mkPoint(t.admin, product.id, 'hum')
  const label = await mkPoint(t.admin, product.id, 'label', { pointDataType: 3 })
  on = await mkPoint(t.admin, product.id, 'on', { pointDataType: 5 })
  stream = await mkStream(t.admin, product.productID, [temp.id, hum.id, label.id, on.id], {
    topic: 'telemetry',
  })
  await switchTemplate(t.admin, product.productID, temp.id, 'Heater')
  for (const [metricName, isShow] of [
    ['Temp °F', 1],
    ['Hidden °F', 0],
  ] as const) {
    const m = await t.admin.post('/api/v1/metrics', {
      metricName,
      dataPointIntID: temp.id,
      metricType: 1,
      expressions: 'value * 1.8 + 32',
      chartType: 2,
      isShow,
    })
    assert.is(m.status, 201, m.text)
  }
  device = await newDevice(
    t.admin,
    mqttBody(product.productID, { deviceName: `dev-${Date.now()}` }),
  )
  mqtt = await connectDevice(t, device)
  collectCommands(mqtt, got)
  const topic = await fullTopic(t, device, stream.topic)
  for (const [tv, hv, ov] of [
    [20.5, 40, true],
    [23, 45, false],
    [21, 43, true],
  ] as const) {
    const values = { temp: tv, hum: hv, label: 'x', on: ov }
    await mqtt.publishAsync(topic, JSON.stringify(values), { qos: 1 })
    await sleep(150)
  }
})

ui.after(async () => {
  end(mqtt)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'device-page', () => page)

test('Charts :: a figure per numeric data point and shown metric, drawn with the published values', async () => {
  await signInAdmin(page, `${t.url}/`)
  await page.goto(`${t.url}/devices/${device.id}`)
  const charts = await byRole(page, 'region', 'Charts')
  for (const name of [temp.dataPointName, hum.dataPointName, on.dataPointName, 'Temp °F']) {
    const figure = await byRole(page, 'figure', name)
    assert.ok(await figure.$('canvas'), 'a canvas')
    const n = await until(
      () => bluePixels(figure),
      (n) => n > 50,
      5000,
    )
    assert.ok(n > 50, `${n} blue pixels`)
  }
  const names = await Promise.all(
    (await allByRole(charts, 'figure')).map((f) => f.evaluate((e) => e.getAttribute('aria-label'))),
  )
  assert.equal(names, [temp.dataPointName, hum.dataPointName, on.dataPointName, 'Temp °F'])
  assert.equal(await axeViolations(page), [])
})

/** Sweeps the pointer across a chart until it is over a value: what the readout then says. */
async function readoutOf(figure: ElementHandle) {
  const canvas = (await figure.$('canvas'))!
  await canvas.scrollIntoView()
  const box = (await canvas.boundingBox())!
  let readout = ''
  for (let x = box.x + box.width - 8; x > box.x + 40 && !readout; x -= 12) {
    await page.mouse.move(x, box.y + box.height / 2)
    readout = await (await figure.$('.chart-readout'))!.evaluate((e) => e.textContent ?? '')
  }
  return readout
}

test('Charts :: the unit beside the axis, a readout of time and value under the pointer, a Boolean as steps', async () => {
  const figure = await byRole(page, 'figure', temp.dataPointName)
  assert.match(await textOf(figure), /\(°C\)/, 'the caption names the unit')
  const readout = await readoutOf(figure)
  assert.match(readout, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} {2}(20\.5|23|21) °C$/)
  const steps = await byRole(page, 'figure', on.dataPointName)
  assert.match(await readoutOf(steps), / {2}(on|off)$/)
  assert.ok((await bluePixels(steps)) > 50, 'the steps are drawn')
})

test('range buttons :: the clicked one is pressed, the others not', async () => {
  const pressed = async () =>
    Promise.all(
      ['1 h', '6 h', '24 h', '7 d', '30 d', '90 d'].map(async (l) =>
        (await byRole(page, 'button', l)).evaluate((b) => b.getAttribute('aria-pressed')),
      ),
    )
  assert.equal(await pressed(), ['true', 'false', 'false', 'false', 'false', 'false'])
  await (await byRole(page, 'button', '7 d')).click()
  await until(pressed, (p) => p[3] === 'true', 3000)
  assert.equal(await pressed(), ['false', 'false', 'false', 'true', 'false', 'false'])
  await byRole(page, 'figure', temp.dataPointName)
  await (await byRole(page, 'button', '1 h')).click()
  await until(pressed, (p) => p[0] === 'true', 3000)
})

test('drag across a chart :: that range re-queried, no range button pressed, the values still drawn', async () => {
  const figure = await byRole(page, 'figure', temp.dataPointName)
  const box = (await (await figure.$('canvas'))!.boundingBox())!
  const asked = page.waitForRequest((r) => r.url().includes('/api/v1/original_data'))
  const y = box.y + box.height / 3
  await page.mouse.move(box.x + box.width / 2, y)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * 0.75, y, { steps: 5 })
  await page.mouse.move(box.x + box.width + 20, y, { steps: 5 })
  await page.mouse.up()
  const q = new URL((await asked).url()).searchParams
  const span = Number(q.get('endTime')) - Number(q.get('startTime'))
  assert.ok(span > 0 && span < 40 * 60_000, `${span} ms asked`)
  const pressed = await Promise.all(
    (await allByRole(await byRole(page, 'group', 'Range'), 'button')).map((b) =>
      b.evaluate((e) => e.getAttribute('aria-pressed')),
    ),
  )
  assert.equal(pressed, ['false', 'false', 'false', 'false', 'false', 'false'])
  const n = await until(
    async () => bluePixels(await byRole(page, 'figure', temp.dataPointName)),
    (n) => n > 50,
    5000,
  )
  assert.ok(n > 50, `${n} blue pixels`)
  await (await byRole(page, 'button', '1 h')).click()
  await until(
    () =>
      byRole(page, 'button', '1 h').then((b) => b.evaluate((e) => e.getAttribute('aria-pressed'))),
    (v) => v === 'true',
    3000,
  )
})

test('Send command :: the device gets it, answers 200, the status says succeeded', async () => {
  const region = await byRole(page, 'region', 'Console')
  await (await byRole(region, 'textbox', 'Payload')).type('{"led":"on"}')
  await (await byRole(page, 'button', 'Send command')).click()
  const request = await commandIn(got, (m) => m.data?.led === 'on')
  assert.is(request?.data_type, 'request')
  await answerCommand(mqtt, await fullTopic(t, device, stream.topic), request!.task_id)
  await textBecomes(await byRole(page, 'status', 'Command status'), 'Succeeded')
  assert.equal(await axeViolations(page), [])
})

test('the Heater switch :: off (last temp 21), a click sends {"temp":1}, on and charted once the device reports 1', async () => {
  const sw = await byRole(page, 'switch', 'Heater')
  assert.is(await sw.evaluate((b) => b.getAttribute('aria-checked')), 'false')
  await sw.click()
  const request = await commandIn(got, (m) => m.data?.temp !== undefined)
  assert.equal([request?.data_type, request?.data], ['request', { temp: 1 }])
  // the device reports the new value: the switch follows it live, the last-hour chart draws it
  const chart = await byRole(page, 'figure', temp.dataPointName)
  const before = await bluePixels(chart)
  await mqtt.publishAsync(await fullTopic(t, device, stream.topic), JSON.stringify({ temp: 1 }), {
    qos: 1,
  })
  assert.is(
    await until(
      () => sw.evaluate((b) => b.getAttribute('aria-checked')),
      (v) => v === 'true',
      5000,
    ),
    'true',
  )
  const after = await until(
    () => bluePixels(chart),
    (n) => n !== before,
    5000,
  )
  assert.ok(after !== before, `${before} blue pixels, then ${after}`)
})

test('a viewer :: the Charts, no Console and no Send command button', async () => {
  await signInViewer(page, t)
  await page.goto(`${t.url}/devices/${device.id}`)
  await byRole(page, 'figure', temp.dataPointName)
  assert.equal(await allByRole(page, 'region', 'Console'), [])
  assert.equal(await allByRole(page, 'button', 'Send command'), [])
  assert.equal(await allByRole(page, 'switch'), [])
})

runWithChromium(ui)
