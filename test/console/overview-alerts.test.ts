/**
 * The console's Overview and Alerts pages in real Chromium against the real service: the fleet figures follow a
 * real MQTT device live; an alert raised by a real rule from an HTTP uplink is listed, acknowledged, cleared into
 * the history; a viewer sees it without write controls; axe-core on both pages.
 */
import type { MqttClient } from 'mqtt'
import type { Browser, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connectDevice, end, until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import {
  alertWorld,
  ruleBody,
  uplink,
  type AlertWorld,
  type Devices,
} from '../src/routes/_alerts.ts'
import type { Page as ListPage, Wire } from '../_support/wire.ts'
import type { AlertRule } from '../../src/schemas/alert-rules.ts'
import type { CurrentAlert } from '../../src/schemas/alerts.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  matchesSoon,
  rowSoon,
  rowWith,
  runWithChromium,
  textOf,
} from './_browser.ts'
import { shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let w: AlertWorld<Devices<2>>
let rule: Wire<typeof AlertRule>
const clients: MqttClient[] = []

const ui = suite('console overview and alerts in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 800))
  w = await alertWorld(t.admin, 2)
  const r = await t.admin.post('/api/v1/alert_rules', ruleBody(w, { condition: 'temp > 80' }))
  assert.is(r.status, 201, r.text)
  rule = r.body
})

ui.after(async () => {
  clients.forEach(end)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'overview-alerts', () => page)

/** The figure card of that label: its text is `label\nvalue`. */
const figure = async (label: string) => textOf(await byRole(page, 'group', label))

/** The table row naming that device (the cell is plain text). */
const rowOf = (table: string, device: string) => rowWith(page, table, device)

const currentAlerts = async () =>
  (
    await t.admin.get<ListPage<Wire<typeof CurrentAlert>>>(
      `/api/v1/current_alerts?ruleID=${rule.id}`,
    )
  ).body.items

test('overview :: 2 devices, none online; axe clean', async () => {
  await signInAdmin(page, `${t.url}/`)
  await byRole(page, 'heading', 'Overview')
  assert.is(await figure('Devices'), 'Devices\n2')
  assert.is(await figure('Online now'), 'Online now\n0')
  assert.is(await figure('Total'), 'Total\n0')
  assert.equal(await axeViolations(page), [])
})

test('a device connects over MQTT :: Online now says 1 within 5 s', async () => {
  clients.push(await connectDevice(t, w.devices[0]))
  const text = await until(
    () => figure('Online now'),
    (s) => s.endsWith('\n1'),
    5000,
  )
  assert.is(text, 'Online now\n1')
})

test('the figures link to what they count :: Online now opens the devices list of online devices', async () => {
  await byRole(page, 'heading', 'Overview')
  const link = await byRole(await byRole(page, 'group', 'Online now'), 'link')
  await link.click()
  await byRole(page, 'heading', 'Devices')
  const at = new URL(page.url())
  assert.is(at.pathname + at.search, '/devices?status=online')
  await byRole(page, 'link', w.devices[0].deviceName)
  const names = await page.$$eval('table tbody tr', (rows) => rows.length)
  assert.is(names, 1, 'only the device online')
  await page.goBack()
  await byRole(page, 'heading', 'Overview')
  const offline = await byRole(await byRole(page, 'group', 'Offline'), 'link')
  assert.is(await offline.evaluate((a) => a.getAttribute('href')), '/devices?status=offline')
})

test('an uplink over the rule :: Urgent open alert on the overview, a row on /alerts', async () => {
  await uplink(t, w.devices[0], { temp: 95 })
  assert.is(
    await until(
      () => figure('Urgent'),
      (s) => s.endsWith('\n1'),
      5000,
    ),
    'Urgent\n1',
  )
  // the navigation counts the open alert, live
  await byRole(page, 'status', '1 open alert')
  await (await byRole(page, 'link', 'Alerts')).click()
  await byRole(page, 'table', 'Current')
  const row = await rowSoon(page, 'Current', w.devices[0].deviceName)
  const text = await textOf(row!)
  assert.match(text, rule.ruleName)
  assert.match(text, /\bUrgent\b/)
  assert.match(text, /\bNo\b/)
  assert.match(text, /\btemp 95\b/, 'the value that fired it')
  assert.equal(await axeViolations(page), [])
  // the device's page shows its open alert with the values
  await page.goto(`${t.url}/devices/${w.devices[0].id}`)
  const open = await byRole(page, 'region', 'Open alerts (1)')
  assert.match(await textOf(open), new RegExp(`${rule.ruleName}.*temp 95`))
  await page.goBack()
  await byRole(page, 'table', 'Current')
})

test('the alert firing again :: its Times and values follow live on /alerts and on the device page', async () => {
  const before = (await currentAlerts())[0]!
  await uplink(t, w.devices[0], { temp: 97 })
  await matchesSoon(
    async () => textOf((await rowOf('Current', w.devices[0].deviceName))!),
    new RegExp(`temp 97\\b.*\\b${before.alertTimes + 1}\\b`, 's'),
  )
  assert.is((await currentAlerts())[0]!.alertTimes, before.alertTimes + 1)
  await page.goto(`${t.url}/devices/${w.devices[0].id}`)
  await byRole(page, 'region', 'Open alerts (1)')
  await uplink(t, w.devices[0], { temp: 99 })
  await matchesSoon(
    async () => textOf(await byRole(page, 'region', 'Open alerts (1)')),
    new RegExp(`${rule.ruleName}.*temp 99`),
  )
  await page.goBack()
  await byRole(page, 'table', 'Current')
})

test('Acknowledge :: the row says acknowledged, the API too; the button is gone', async () => {
  const row = (await rowOf('Current', w.devices[0].deviceName))!
  await (await row.waitForSelector('::-p-aria([role="button"][name="Acknowledge"])'))!.click()
  await matchesSoon(
    async () => textOf((await rowOf('Current', w.devices[0].deviceName))!),
    /\bYes\b/,
  )
  const [a] = await currentAlerts()
  assert.ok(a?.ackAt, 'ackAt set')
  const again = (await rowOf('Current', w.devices[0].deviceName))!
  assert.equal(await allByRole(again, 'button', 'Acknowledge'), [])
  assert.is((await allByRole(again, 'button', 'Clear')).length, 1)
})

test('Clear :: gone from Current (and the API), listed in History', async () => {
  const row = (await rowOf('Current', w.devices[0].deviceName))!
  await (await row.waitForSelector('::-p-aria([role="button"][name="Clear"])'))!.click()
  await until(
    () => rowOf('Current', w.devices[0].deviceName),
    (r) => r === null,
    5000,
  )
  assert.equal(await currentAlerts(), [])
  assert.equal(
    await until(
      () => allByRole(page, 'status', '1 open alert'),
      (b) => b.length === 0,
      5000,
    ),
    [],
    'the navigation badge is gone with the last open alert',
  )
  await (await byRole(page, 'tab', 'History')).click()
  await byRole(page, 'table', 'History')
  const hist = await rowSoon(page, 'History', w.devices[0].deviceName)
  assert.match(await textOf(hist!), rule.ruleName)
  assert.equal(await axeViolations(page), [])
})

test('a viewer :: sees the current alert, no Acknowledge or Clear button', async () => {
  await uplink(t, w.devices[1], { temp: 99 })
  await signInViewer(page, t, `${t.url}/alerts`)
  await byRole(page, 'table', 'Current')
  const row = await rowSoon(page, 'Current', w.devices[1].deviceName)
  assert.match(await textOf(row!), rule.ruleName)
  const buttons = await Promise.all((await allByRole(page, 'button')).map(textOf))
  assert.equal(buttons, ['Sign out', 'Previous', 'Next'])
})

runWithChromium(ui)
