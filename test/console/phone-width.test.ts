/**
 * Every page of the console at a phone's width (390x844) and a desktop's (1440x900), in real Chromium against the
 * real service with a small fleet (devices with readings, a gateway, a group, a rollout, a rule with an open alert,
 * a webhook, a schedule): no page scrolls sideways (a wide table scrolls inside its own region, not the page), the
 * navigation sits behind `Menu` on the phone and opens and closes, and axe-core finds no serious or critical
 * violation. Screenshots of every page at both widths are written to test-artifacts/ to be looked at.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { alertWorld, uplink, type AlertWorld } from '../src/routes/_alerts.ts'
import type { TestService } from '../_support/service.ts'
import { newGateway } from '../src/routes/devices-helpers.ts'
import { uploadFirmware } from '../ingest/_ota.ts'
import { ARTIFACTS, axeViolations, byRole, runWithChromium, type PageElement } from './_browser.ts'
import { goTo, shotCases, signInAdmin, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let w: AlertWorld
const paths: Array<[name: string, path: string]> = []

const ui = suite('console at phone and desktop widths')
const test = shotCases(ui, 'phone-width', () => page)

/** A fleet with something on every page. */
async function seed() {
  w = await alertWorld(t.admin, 3)
  const [a, b] = w.devices
  const gw = await newGateway(t.admin, w.product.productID)
  const rule = await t.admin.post('/api/v1/alert_rules', {
    ruleName: 'too hot',
    productID: w.product.productID,
    condition: 'temp > 80',
    alertSeverity: 1,
  })
  assert.is(rule.status, 201, rule.text)
  await uplink(t, a!, { temp: 91.5, hum: 40 })
  await uplink(t, b!, { temp: 20.25, hum: 55 })
  const g = await t.admin.post('/api/v1/groups', {
    productID: w.product.productID,
    groupName: 'Boiler room and the long corridor beyond it',
  })
  assert.is(g.status, 201, g.text)
  await t.admin.post(`/api/v1/groups/${g.body.id}/devices`, { ids: [a!.id, b!.id] })
  const fw = await uploadFirmware(
    t,
    t.admin.authorization!,
    w.product.productID,
    '1.0.1',
    new Uint8Array(4096),
  )
  const ro = await t.admin.post('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    groupID: g.body.groupID,
    ratePerMinute: 10,
  })
  assert.is(ro.status, 201, ro.text)
  const hook = await t.admin.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook' })
  assert.is(hook.status, 201, hook.text)
  const s = await t.admin.post('/api/v1/device_schedule_publish', {
    deviceIntID: a!.id,
    scheduleName: 'nightly reset of the boiler controller',
    scheduleType: 2,
    IntervalMinute: 60,
    payload: '{"reset":true}',
  })
  assert.is(s.status, 201, s.text)
  const cert = await t.admin.post('/api/v1/certs', {
    name: 'field gateways',
    enable: 1,
    CN: 'gw-field',
  })
  assert.is(cert.status, 201, cert.text)
  paths.push(
    ['overview', '/'],
    ['devices', '/devices'],
    ['map', '/map'],
    ['device', `/devices/${a!.id}`],
    ['gateway', `/gateways/${gw.id}`],
    ['products', '/products'],
    ['product', `/products/${w.product.id}`],
    ['groups', '/groups'],
    ['group', `/groups/${g.body.id}`],
    ['firmware', '/firmware'],
    ['rollout', `/firmware/rollouts/${ro.body.id}`],
    ['alerts', '/alerts'],
    ['alert-rules', '/alert_rules'],
    ['webhooks', '/webhooks'],
    ['webhook', `/webhooks/${hook.body.id}`],
    ['schedules', '/schedules'],
    ['users', '/users'],
    ['applications', '/applications'],
    ['certs', '/certs'],
    ['cert', `/certs/${cert.body.id}`],
    ['audit', '/audit'],
  )
}

ui.before(async () => {
  // no tiles from the internet: the map draws its built-in outline
  ;({ t, browser, page } = await startConsole(390, 844, { MAP_TILE_URL: 'none' }))
  await seed()
  await signInAdmin(page, t.url)
})
ui.after(() => stopConsole(browser, t))

/** What the width check reads of the page's elements. */
interface Box {
  tagName: string
  className: string
  parentElement: Box | null
  getBoundingClientRect(): { right: number }
}
type Dom = typeof globalThis & {
  document: {
    documentElement: { clientWidth: number; scrollWidth: number }
    querySelectorAll(selector: string): Iterable<Box>
  }
  getComputedStyle(e: Box): { overflowX: string }
}

/** The page's width beyond the viewport, and the elements that stick out of it outside a scrolling region. */
const overflow = () =>
  page.evaluate(() => {
    const d = (globalThis as Dom).document
    const vw = d.documentElement.clientWidth
    const out = [...d.querySelectorAll('main *, nav *, header *')]
      .filter((e) => {
        if (e.getBoundingClientRect().right <= vw + 1) return false
        // inside a region that scrolls (or clips) on its own: the page does not scroll for it
        for (let x = e.parentElement; x; x = x.parentElement)
          if (
            ['auto', 'scroll', 'hidden'].includes((globalThis as Dom).getComputedStyle(x).overflowX)
          )
            return false
        return true
      })
      .slice(0, 5)
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)})`,
      )
    return { extra: d.documentElement.scrollWidth - vw, out }
  })

/** Opens `path` in the app and waits for its heading and its reads. */
async function open(path: string) {
  await goTo(page, path)
  await byRole(page, 'heading')
  await new Promise((r) => setTimeout(r, 700))
}

async function everyPage(width: number, height: number) {
  await page.setViewport({ width, height })
  const wide: string[] = []
  const axe: string[] = []
  mkdirSync(ARTIFACTS, { recursive: true })
  for (const [name, path] of paths) {
    await open(path)
    const { extra, out } = await overflow()
    if (extra > 0) wide.push(`${name}: ${extra} px too wide: ${out.join(', ')}`)
    for (const v of await axeViolations(page)) axe.push(`${name}: ${v}`)
    await page.screenshot({ path: join(ARTIFACTS, `width-${width}-${name}.png`), fullPage: true })
  }
  assert.equal(wide, [])
  assert.equal(axe, [])
}

test('390 px :: no page scrolls sideways; axe finds nothing serious', () => everyPage(390, 844))

test('390 px :: the navigation sits behind Menu, which opens and closes it', async () => {
  await page.setViewport({ width: 390, height: 844 })
  await open('/devices')
  const menu = await byRole(page, 'button', 'Menu')
  const navShown = () =>
    page.$eval('#main-nav', (n) => (n as unknown as PageElement).offsetHeight > 0)
  assert.is(await navShown(), false)
  assert.is(await menu.evaluate((b) => b.getAttribute('aria-expanded')), 'false')
  await menu.click()
  assert.is(await navShown(), true)
  assert.is(await menu.evaluate((b) => b.getAttribute('aria-expanded')), 'true')
  await (await byRole(page, 'link', 'Products')).click()
  await byRole(page, 'heading', 'Products')
  assert.is(await navShown(), false, 'following a link closes the menu')
  await page.setViewport({ width: 1440, height: 900 })
  assert.is(await navShown(), true, 'on a desktop the navigation always shows')
  assert.is(await menu.evaluate((b) => (b as unknown as PageElement).offsetHeight), 0)
})

test('1440 px :: no page scrolls sideways; axe finds nothing serious', () => everyPage(1440, 900))

runWithChromium(ui)
