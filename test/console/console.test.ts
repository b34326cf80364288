/**
 * The web console in real Chromium against the real service (CONTRACT §12): sign-in, the shell, the devices list
 * and a device page following a real MQTT device live, a viewer's page, and axe-core on every page built.
 */
import type { MqttClient } from 'mqtt'
import type { Browser, HTTPRequest, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connectDevice, end, fullTopic, until } from '../ingest/_mqtt.ts'
import { ADMIN_EMAIL, type TestService } from '../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Wire } from '../_support/wire.ts'
import type { DataStream } from '../../src/schemas/data-streams.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  matchesSoon,
  runWithChromium,
  signIn,
  textOf,
  type InPage,
} from './_browser.ts'
import { searchDevices, shotCases, signInAdmin, startConsole, stopConsole } from './_setup.ts'

const NAV = [
  'Overview',
  'Devices',
  'Map',
  'Products',
  'Groups',
  'Firmware',
  'Alerts',
  'Alert rules',
  'Webhooks',
  'Schedules',
]
/** The admins' links, after the others (test/console/admin-pages.test.ts: a viewer has none). */
const ADMIN_NAV = ['Users', 'Applications', 'Certificates', 'Audit log']

let t: TestService
let browser: Browser
let page: Page
const devices: NewDevice[] = []
let foreign: NewDevice
let stream: Wire<typeof DataStream>
const clients: MqttClient[] = []

const ui = suite('console in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 800))
  const product = await mkProduct(t.admin)
  const temp = await mkPoint(t.admin, product.id, 'temp')
  stream = await mkStream(t.admin, product.productID, [temp.id], { topic: 'telemetry' })
  const tag = Date.now().toString(36)
  for (const name of [`alpha-${tag}`, `beta-${tag}`])
    devices.push(await newDevice(t.admin, mqttBody(product.productID, { deviceName: name })))
  const other = await t.newTenant()
  const otherProduct = await mkProduct(other)
  foreign = await newDevice(other, mqttBody(otherProduct.productID, { deviceName: `gamma-${tag}` }))
})

ui.after(async () => {
  clients.forEach(end)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'console', () => page)

const rowOf = async (name: string) =>
  (await byRole(page, 'link', name)).evaluateHandle((a) => a.closest('tr'))
const rowText = async (name: string) => textOf((await rowOf(name)) as never)

test('sign-in page :: no serious or critical axe violation', async () => {
  await page.goto(`${t.url}/`)
  await byRole(page, 'button', 'Sign in')
  assert.equal(await axeViolations(page), [])
})

test('wrong password :: an alert, still on the sign-in page', async () => {
  await page.goto(`${t.url}/`)
  await signIn(page, ADMIN_EMAIL, 'not-the-password')
  const alert = await byRole(page, 'alert')
  assert.match(await textOf(alert), /refused/)
  assert.equal(await allByRole(page, 'navigation'), [])
})

test('sign in :: a navigation with every link (an admin’s last) and a Sign out button', async () => {
  await signInAdmin(page, `${t.url}/`)
  const nav = await byRole(page, 'navigation')
  const links = await allByRole(nav, 'link')
  assert.equal(await Promise.all(links.map(textOf)), [...NAV, ...ADMIN_NAV])
  await byRole(page, 'button', 'Sign out')
})

test('keyboard only :: Tab reaches the language control, Sign out and every link; Enter follows one', async () => {
  await page.goto(`${t.url}/`)
  await byRole(page, 'button', 'Sign out')
  const reached: string[] = []
  for (let i = 0; i < 14; i++) {
    await page.keyboard.press('Tab')
    reached.push(
      await page.evaluate(() => {
        const el = (globalThis as InPage).document.activeElement!
        return `${el.tagName.toLowerCase()}:${(el.innerText || el.getAttribute('aria-label') || '').trim()}`
      }),
    )
  }
  for (const want of ['select:', 'button:Sign out', ...NAV.map((n) => `a:${n}`)])
    assert.ok(
      reached.some((r) => r.startsWith(want)),
      `${want} not reached by Tab: ${reached.join(' | ')}`,
    )
  // Tab from the page's start to the Devices link, then Enter
  await page.evaluate(() => (globalThis as InPage).document.activeElement?.blur())
  for (let i = 0; i < 14; i++) {
    await page.keyboard.press('Tab')
    const on = await page.evaluate(() => (globalThis as InPage).document.activeElement?.innerText)
    if (on === 'Devices') break
  }
  await page.keyboard.press('Enter')
  await byRole(page, 'searchbox', 'Search devices')
  assert.is(new URL(page.url()).pathname, '/devices')
})

test('reload of a deep link :: still signed in, on that page', async () => {
  await page.goto(`${t.url}/devices`)
  await page.reload()
  await byRole(page, 'searchbox', 'Search devices')
  await byRole(page, 'button', 'Sign out')
})

test("/devices :: the tenant's 2 devices (not another tenant's), Offline; search narrows", async () => {
  await (await byRole(page, 'link', 'Devices')).click()
  await byRole(page, 'table')
  await byRole(page, 'link', devices[0]!.deviceName)
  await byRole(page, 'link', devices[1]!.deviceName)
  assert.equal(await allByRole(page, 'link', foreign.deviceName), [])
  assert.match(await rowText(devices[0]!.deviceName), /\bOffline\b/)
  const href = await (
    await byRole(page, 'link', devices[1]!.deviceName)
  ).evaluate((a) => a.getAttribute('href'))
  assert.is(href, `/devices/${devices[1]!.id}`)
  assert.equal(await axeViolations(page), [])
  await searchDevices(page, 'beta', devices[0]!.deviceName, devices[1]!.deviceName)
})

test('a device connects over MQTT :: its row says Online within 5 s, live', async () => {
  clients.push(await connectDevice(t, devices[1]!))
  await matchesSoon(() => rowText(devices[1]!.deviceName), /\bOnline\b/)
})

test('device page :: heading, Latest values, a published value within 3 s; axe clean', async () => {
  await (await byRole(page, 'link', devices[1]!.deviceName)).click()
  await byRole(page, 'heading', devices[1]!.deviceName)
  const region = await byRole(page, 'region', 'Latest values')
  assert.match(await textOf(region), /name temp/)
  assert.match(await textOf(await byRole(page, 'region', 'Info')), /\bOnline\b/)
  await clients[0]!.publishAsync(
    await fullTopic(t, devices[1]!, stream.topic),
    JSON.stringify({ temp: 21.75 }),
    { qos: 1 },
  )
  await matchesSoon(() => textOf(region), /21\.75/, 3000)
  assert.equal(await axeViolations(page), [])
})

test("another tenant's device page :: Not found, nothing of it shown", async () => {
  await page.goto(`${t.url}/devices/${foreign.id}`)
  await byRole(page, 'heading', 'Not found.')
  assert.equal(await allByRole(page, 'heading', foreign.deviceName), [])
  await page.goBack()
  await byRole(page, 'heading', devices[1]!.deviceName)
})

test('device disconnects :: Offline on its page, live', async () => {
  end(clients.shift())
  const info = await byRole(page, 'region', 'Info')
  await matchesSoon(() => textOf(info), /\bOffline\b/)
})

test('Language control :: Chinese labels, then English again', async () => {
  const select = await byRole(page, 'combobox', 'Language')
  await select.select('zh')
  await byRole(page, 'link', '设备')
  await (await byRole(page, 'combobox', '语言')).select('en')
  await byRole(page, 'link', 'Devices')
})

test('Sign out :: back to the sign-in page; a reload stays signed out', async () => {
  await (await byRole(page, 'button', 'Sign out')).click()
  await byRole(page, 'button', 'Sign in')
  await page.reload()
  await byRole(page, 'button', 'Sign in')
  assert.equal(await allByRole(page, 'navigation'), [])
})

/** Signs in as the admin through the form; the token the page stored. */
async function signInForToken(): Promise<string> {
  await signInAdmin(page)
  return page.evaluate(
    () =>
      (
        JSON.parse((globalThis as InPage).localStorage.getItem('devicecloud.session')!) as {
          token: string
        }
      ).token,
  )
}

test('a revoked token :: the next page load returns to sign-in', async () => {
  const token = await signInForToken()
  const r = await fetch(`${t.url}/api/v1/logout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  })
  assert.is(r.status, 204)
  await page.goto(`${t.url}/devices`)
  await byRole(page, 'button', 'Sign in')
})

test('Sign out, then a navigation at once :: the new page is signed out and the token is revoked', async () => {
  const token = await signInForToken()
  // the revoke is held back 500 ms, so that the navigation surely comes before its answer
  await page.setRequestInterception(true)
  const hold = (req: HTTPRequest) => {
    if (req.url().endsWith('/api/v1/logout')) setTimeout(() => void req.continue(), 500)
    else void req.continue()
  }
  page.on('request', hold)
  try {
    await (await byRole(page, 'button', 'Sign out')).click()
    await page.goto(`${t.url}/products`)
    await byRole(page, 'button', 'Sign in')
    assert.equal(await allByRole(page, 'navigation'), [])
  } finally {
    page.off('request', hold)
    await page.setRequestInterception(false)
  }
  const status = await until(
    async () =>
      (await fetch(`${t.url}/api/v1/devices`, { headers: { authorization: `Bearer ${token}` } }))
        .status,
    (s) => s === 401,
    5000,
  )
  assert.is(status, 401)
})

test('a viewer :: sees the devices and a device page with no write control', async () => {
  const viewer = await t.userWithRole('viewer')
  await page.goto(`${t.url}/devices`)
  await signIn(page, viewer.email, 'user-password-1')
  await byRole(page, 'link', devices[0]!.deviceName)
  const buttons = async () => Promise.all((await allByRole(page, 'button')).map(textOf))
  assert.equal(await buttons(), ['Sign out', 'Export CSV', 'Previous', 'Next'])
  await (await byRole(page, 'link', devices[0]!.deviceName)).click()
  await byRole(page, 'heading', devices[0]!.deviceName)
  await byRole(page, 'region', 'Charts')
  await byRole(page, 'button', 'Copy mosquitto_sub')
  await byRole(page, 'button', 'Next')
  // copying the connection lines, the Charts' ranges, the logs' and the firmware history's pagers only choose
  // what is shown
  assert.equal(await buttons(), [
    'Sign out',
    'Copy',
    'Copy',
    '1 h',
    '6 h',
    '24 h',
    '7 d',
    '30 d',
    '90 d',
    'Show range',
    'Previous',
    'Next',
    'Previous',
    'Next',
  ])
})

runWithChromium(ui)
