/**
 * A device's commands in the console, in real Chromium against the real service with a real MQTT.js device: a
 * status shown as its label with the reason it did not reach the device (in English, and in Chinese after the
 * language is switched), a device's answer shown live with its response code, an app template's On/Off switch that
 * sends its command, axe-core.
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
import type { TestService } from '../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Page as ListPage, Wire } from '../_support/wire.ts'
import type { ControlLog } from '../../src/schemas/logs.ts'
import { axeViolations, byRole, rowSoon, runWithChromium, textBecomes, textOf } from './_browser.ts'
import { shotCases, signInAdmin, startConsole, stopConsole, switchTemplate } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let offline: NewDevice
let online: NewDevice
let topic: string
let mqtt: MqttClient
const got: Command[] = []

const ui = suite('device commands in Chromium: labels, reasons, answers, the switch')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 1000))
  const product = await mkProduct(t.admin)
  const power = await mkPoint(t.admin, product.id, 'power')
  const stream = await mkStream(t.admin, product.productID, [power.id], { topic: 'telemetry' })
  await switchTemplate(t.admin, product.productID, power.id, 'Power')
  offline = await newDevice(t.admin, mqttBody(product.productID))
  online = await newDevice(t.admin, mqttBody(product.productID))
  mqtt = await connectDevice(t, online)
  collectCommands(mqtt, got)
  topic = await fullTopic(t, online, stream.topic)
  await signInAdmin(page, `${t.url}/`)
})

ui.after(async () => {
  end(mqtt)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'device-commands', () => page)

/** Types `payload` into the Console's composer and sends it now. */
async function sendCommand(payload: string) {
  const region = await byRole(page, 'region', 'Console')
  const box = await byRole(region, 'textbox', 'Payload')
  await box.click({ count: 3 })
  await box.type(payload)
  await (await byRole(region, 'button', 'Send command')).click()
}

/** The newest command of a device, from the API. */
const newest = async (d: NewDevice) =>
  (await t.admin.get<ListPage<Wire<typeof ControlLog>>>(`/api/v1/devices/${d.id}/control_logs`))
    .body.items[0]!

const checked = (el: ElementHandle) => el.evaluate((e) => e.getAttribute('aria-checked'))

/** Marks the page: a reload (or a navigation) loses the mark. */
const mark = () => page.evaluate(() => void ((globalThis as { marked?: number }).marked = 1))
const marked = () => page.evaluate(() => (globalThis as { marked?: number }).marked === 1)

test('Not sent :: an offline device’s command says why, in the composer and the row; in Chinese after the switch', async () => {
  await page.goto(`${t.url}/devices/${offline.id}`)
  await sendCommand('{"led":"on"}')
  const status = await byRole(page, 'status', 'Command status')
  await textBecomes(status, 'Not sent: device offline, no ttl')
  const taskID = (await newest(offline)).taskID!
  const row = (await rowSoon(page, 'Recent commands', taskID))!
  assert.ok(row, 'the command is listed')
  assert.match(await textOf(row), /Not sent: device offline, no ttl/)
  assert.equal(await axeViolations(page), [])
  await (await byRole(page, 'combobox', 'Language')).select('zh')
  await textBecomes(status, '未下发：设备离线且未设置 TTL')
  const zhRow = (await rowSoon(page, '最近指令', taskID))!
  assert.match(await textOf(zhRow), /未下发：设备离线且未设置 TTL/)
  await (await byRole(page, 'combobox', '语言')).select('en')
  await textBecomes(status, 'Not sent: device offline, no ttl')
})

test('Not sent :: the switch of an offline device stays Off and says why', async () => {
  const sw = await byRole(page, 'switch', 'Power')
  assert.equal([await checked(sw), await textOf(sw)], ['false', 'Off'])
  await sw.click()
  await textBecomes(
    await byRole(page, 'status', 'Power: command status'),
    'Not sent: device offline, no ttl',
  )
  assert.equal([await checked(sw), await textOf(sw)], ['false', 'Off'])
  assert.equal((await newest(offline)).payload, '{"power":1}')
})

test('Succeeded live :: the connected device answers 200; the row shows Succeeded and the code without a reload', async () => {
  await page.goto(`${t.url}/devices/${online.id}`)
  await byRole(page, 'table', 'Recent commands')
  await mark()
  await sendCommand('{"led":"blink"}')
  const request = await commandIn(got, (m) => m.data?.led === 'blink')
  assert.is(request?.data_type, 'request')
  const row = (await rowSoon(page, 'Recent commands', request!.task_id))!
  assert.ok(row, 'the command is listed')
  await answerCommand(mqtt, topic, request!.task_id, 200)
  await textBecomes(await byRole(page, 'status', 'Command status'), 'Succeeded')
  const answered = await until(
    async () => textOf((await rowSoon(page, 'Recent commands', request!.task_id))!),
    (s) => /Succeeded/.test(s) && /\b200\b/.test(s),
    5000,
  )
  assert.match(answered, /Succeeded/)
  assert.match(answered, /\b200\b.*"code":200/s)
  assert.ok(await marked(), 'no reload')
})

test('the switch :: Off, a click sends {"power":1} and shows On (aria-checked true); again sends {"power":0}', async () => {
  const sw = await byRole(page, 'switch', 'Power')
  assert.equal([await checked(sw), await textOf(sw)], ['false', 'Off'])
  assert.is(await sw.evaluate((e) => e.tagName), 'BUTTON')
  await sw.click()
  const on = await commandIn(got, (m) => m.data?.power === 1)
  assert.equal([on?.data_type, on?.data], ['request', { power: 1 }])
  assert.is(
    await until(
      () => checked(sw),
      (v) => v === 'true',
      5000,
    ),
    'true',
  )
  assert.is(await textOf(sw), 'On')
  await textBecomes(await byRole(page, 'status', 'Power: command status'), 'Delivered')
  assert.equal(await axeViolations(page), [])
  await sw.click()
  const off = await commandIn(got, (m) => m.data?.power === 0)
  assert.equal(off?.data, { power: 0 })
  assert.is(
    await until(
      () => checked(sw),
      (v) => v === 'false',
      5000,
    ),
    'false',
  )
  assert.is(await textOf(sw), 'Off')
  assert.ok(await marked(), 'no reload')
})

runWithChromium(ui)
