/**
 * The console's Alert rules and Webhooks pages in real Chromium against the real service: a rule created through
 * the form, its dry run over values uplinked through the API (one firing, drawn on a canvas), disabled; a webhook
 * created through the form towards a real receiver, a delivery the receiver refused re-sent from the delivery log;
 * a link-local URL refused with the API's message; a viewer without write controls; another tenant's webhook not
 * found; axe-core on each page.
 */
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { sleep, until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { alertWorld, uplink, type AlertWorld, type Devices } from '../src/routes/_alerts.ts'
import { startReceiver, type Receiver } from '../src/services/_receiver.ts'
import type { Page as ListPage, Wire } from '../_support/wire.ts'
import type { AlertRule } from '../../src/schemas/alert-rules.ts'
import type { Webhook } from '../../src/schemas/webhooks.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  rowSoon,
  rowWith,
  runWithChromium,
  selectListed,
  textOf,
  type InPage,
} from './_browser.ts'
import { shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let w: AlertWorld<Devices<2>>
let rx: Receiver
const RULE = 'Too hot in the test'

const ui = suite('console alert rules and webhooks in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 900))
  await browser
    .defaultBrowserContext()
    .overridePermissions(t.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write'])
  rx = await startReceiver()
  w = await alertWorld(t.admin, 2)
  // one excursion over 80 on the first device: 50, 90, 95, 50
  for (const temp of [50, 90, 95, 50]) {
    await uplink(t, w.devices[0], { temp })
    await sleep(5)
  }
  page.on('dialog', (d) => void d.accept())
})

ui.after(async () => {
  await rx?.close()
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'rules-webhooks', () => page)

const rules = async () =>
  (await t.admin.get<ListPage<Wire<typeof AlertRule>>>('/api/v1/alert_rules')).body.items
const hooks = async () =>
  (await t.admin.get<ListPage<Wire<typeof Webhook>>>('/api/v1/webhooks')).body.items

/** The row of that table whose text includes `text`. */
const rowOf = (table: string, text: string) => rowWith(page, table, text)

/**
 * What the figure's canvas shows: pixels of the series' blue (#2563eb) and of the threshold's red line (#dc2626),
 * and the columns that are translucent red from top to bottom (at least 50 pixels of them): a shaded firing window
 * (rgba(220, 38, 38, 0.18); the canvas is transparent under it), which a horizontal line cannot give.
 */
const pixels = (figure: ElementHandle) =>
  figure.evaluate((f) => {
    const n = { blue: 0, line: 0, bandColumns: 0 }
    for (const c of f.querySelectorAll('canvas')) {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data
      const shaded = new Array<number>(c.width).fill(0)
      for (let i = 0; i < d.length; i += 4) {
        const [r, g, b, a] = [d[i]!, d[i + 1]!, d[i + 2]!, d[i + 3]!]
        if (a === 0) continue
        if (b > 180 && r < 120) n.blue++
        else if (r > 180 && g < 90 && b < 90) {
          if (a > 100) n.line++
          else shaded[(i / 4) % c.width]!++
        }
      }
      n.bandColumns += shaded.filter((k) => k >= 50).length
    }
    return n
  })

const buttonNames = async () => Promise.all((await allByRole(page, 'button')).map(textOf))

test('create a rule through the form :: the API holds every field, the table lists it', async () => {
  await signInAdmin(page, `${t.url}/`)
  await (await byRole(page, 'link', 'Alert rules')).click()
  await byRole(page, 'table', 'Alert rules')
  await (await byRole(page, 'button', 'New rule')).click()
  await (await byRole(page, 'textbox', 'Rule name')).type(RULE)
  await selectListed(await byRole(page, 'combobox', 'Product'), w.product.productID)
  const condition = await byRole(page, 'textbox', 'Condition')
  await condition.type('nosuch > 80')
  await (await byRole(page, 'combobox', 'Severity')).select('1')
  await (await byRole(page, 'textbox', 'Alert content')).type('{deviceName}: {value:temp}')
  await (await byRole(page, 'button', 'Save')).click()
  assert.match(
    await textOf(await byRole(page, 'alert')),
    /^The request body is invalid: condition: .*nosuch/,
  )
  assert.equal(await rules(), [])
  await condition.click({ count: 3 })
  await condition.type('temp > 80')
  // the device filter: chosen by name, never by record id
  const only = w.devices[0]
  await (
    await byRole(page, 'searchbox', 'Search devices to add')
  ).type(only.deviceName.slice(0, -1))
  await (await byRole(page, 'button', `Add ${only.deviceName}`)).click()
  await byRole(page, 'button', `Remove ${only.deviceName}`)
  await (await byRole(page, 'button', 'Save')).click()
  const row = await rowSoon(page, 'Alert rules', RULE)
  assert.match(await textOf(row!), /Urgent\s+Yes/)
  const r = (await rules())[0]!
  assert.equal(
    [r.ruleName, r.productID, r.condition, r.alertSeverity, r.forSeconds, r.enable],
    [RULE, w.product.productID, 'temp > 80', 1, 0, 1],
  )
  assert.equal(
    [r.clearCondition, r.noDataSeconds, r.alertContent, r.deviceIntIDs],
    [null, null, '{deviceName}: {value:temp}', [w.devices[0].id]],
  )
})

test('dry run over the uplinked values :: 1 firing stated, drawn on the canvas with the threshold; axe clean', async () => {
  await (await byRole(page, 'button', `Edit ${RULE}`)).click()
  await byRole(page, 'region', 'Dry run')
  const deviceSelect = await byRole(page, 'combobox', 'Device')
  await until(
    () => deviceSelect.evaluate((s: { options: { length: number } }) => s.options.length),
    (n) => n === 2,
    5000,
  )
  await deviceSelect.select(w.devices[0].deviceID)
  const asked = page.waitForRequest((r) => r.url().endsWith('/api/v1/alert_rules/test'))
  await (await byRole(page, 'button', 'Run dry run')).click()
  const body = JSON.parse((await asked).postData()!)
  assert.equal(
    [body.deviceID, body.condition, body.productID],
    [w.devices[0].deviceID, 'temp > 80', w.product.productID],
  )
  const status = await byRole(page, 'status')
  assert.is(await textOf(status), 'The rule would have fired 1 time.')
  const firing = (await allByRole(await byRole(page, 'table', 'Firings'), 'row')).slice(1)
  assert.is(firing.length, 1)
  assert.match(await textOf(firing[0]!), /\t2$/)
  const figure = await byRole(page, 'figure', w.temp.dataPointName)
  const px = await until(
    () => pixels(figure),
    (p) => p.blue > 20 && p.line > 200 && p.bandColumns >= 4,
    5000,
  )
  assert.ok(px.blue > 20 && px.line > 200 && px.bandColumns >= 4, JSON.stringify(px))
  assert.equal(await axeViolations(page), [])
})

test('Disable :: the API says enable 0, the row says No', async () => {
  await (await byRole(page, 'button', 'Cancel')).click()
  await (await byRole(page, 'button', `Disable ${RULE}`)).click()
  await byRole(page, 'button', `Enable ${RULE}`)
  assert.is((await rules())[0]!.enable, 0)
  assert.match(await textOf((await rowOf('Alert rules', RULE))!), /Urgent\s+No/)
})

test('create a webhook to a receiver :: the secret shown once; a refused delivery re-sent succeeds; axe clean', async () => {
  await (await byRole(page, 'link', 'Webhooks')).click()
  await (await byRole(page, 'button', 'New webhook')).click()
  await (await byRole(page, 'textbox', 'URL')).type(`${rx.url}/hook`)
  await (await byRole(page, 'button', 'Save')).click()
  const secret = await byRole(
    page,
    'region',
    'Secret (shown only now: copy it to check the signatures)',
  )
  const shown = await (await secret.waitForSelector('input'))!.evaluate(
    (i: { value: string }) => i.value,
  )
  assert.match(shown, /^[0-9a-f]{48}$/)
  await (await byRole(secret as never, 'button', 'Copy the secret')).click()
  assert.is(
    await until(
      () => page.evaluate(() => (globalThis as InPage).navigator.clipboard.readText()),
      (s) => s === shown,
      5000,
    ),
    shown,
  )
  const hook = (await hooks())[0]!
  assert.equal([hook.url, hook.events.length, hook.enable], [`${rx.url}/hook`, 7, 1])
  assert.equal(await axeViolations(page), [])

  // the log open, the receiver refuses the first delivery of a queued command's command.status event
  await (await byRole(page, 'link', `Deliveries ${rx.url}/hook`)).click()
  await byRole(page, 'heading', `Webhook ${rx.url}/hook`)
  await byRole(page, 'table', 'Deliveries')
  rx.answers.push(500)
  const cmd = await t.admin.post('/api/v1/device_publish', {
    deviceID: w.devices[1].deviceID,
    payload: 'x',
    ttl: 600,
  })
  assert.is(cmd.status, 201, cmd.text)
  const [d] = (await t.admin.get(`/api/v1/webhooks/${hook.id}/deliveries`)).body.items
  // the row appears live (the event stream brought the event), with the receiver's 500
  const failed = await until(
    async () => {
      const row = await rowOf('Deliveries', 'command.status')
      return row ? textOf(row) : ''
    },
    (s) => /\tpending\t1\t500\t/.test(s),
    5000,
  )
  assert.match(failed, /command\.status.*\tpending\t1\t500\t/)
  await (await byRole(page, 'button', `Re-send ${d.id}`)).click()
  const status = await until(
    async () => textOf(await byRole(page, 'status')),
    (s) => s.endsWith('succeeded'),
    10_000,
  )
  assert.is(status, `Delivery ${d.id} re-sent: succeeded`)
  assert.match(
    await textOf((await rowOf('Deliveries', 'command.status'))!),
    /\tsucceeded\t2\t200\t/,
  )
  assert.is(rx.got.length, 2)
  const after = (await t.admin.get(`/api/v1/webhooks/${hook.id}/deliveries`)).body.items[0]
  assert.equal([after.status, after.attempts, after.responseCode], ['succeeded', 2, 200])
  // the body it sent, shown on demand: exactly what the receiver got
  const bodyButton = await byRole(page, 'button', `Body of delivery ${d.id}`)
  await bodyButton.click()
  const pre = await page.waitForSelector('tr.delivery-body pre')
  const shownBody = await until(
    () => textOf(pre!),
    (s) => s.startsWith('{'),
    5000,
  )
  assert.equal(JSON.parse(shownBody), JSON.parse(rx.got[1]!.body))
  assert.is(await bodyButton.evaluate((b) => b.getAttribute('aria-expanded')), 'true')
  assert.equal(await axeViolations(page), [])
  await (await byRole(page, 'link', 'All webhooks')).click()
  // the row shows first, its last delivery once that read answers: wait for the status, not the row
  const listed = await until(
    async () => {
      const row = await rowOf('Webhooks', '/hook')
      return row ? textOf(row) : ''
    },
    (s) => /succeeded \(200\)/.test(s),
    5000,
  )
  assert.match(listed, /succeeded \(200\)/)
})

test('a link-local URL :: refused with the API message in role alert, nothing saved', async () => {
  await (await byRole(page, 'button', 'New webhook')).click()
  await (await byRole(page, 'textbox', 'URL')).type('http://169.254.169.254/latest')
  await (await byRole(page, 'button', 'Save')).click()
  const alert = await byRole(page, 'alert')
  assert.is(
    await textOf(alert),
    'The request body is invalid: url: 169.254.169.254 is a link-local address: not allowed',
  )
  assert.is((await hooks()).length, 1)
})

test('a viewer :: rules, webhooks and deliveries without a write control; a foreign webhook not found', async () => {
  const other = await t.newTenant()
  const foreign = await other.post('/api/v1/webhooks', { url: `${rx.url}/other` })
  assert.is(foreign.status, 201, foreign.text)
  const hook = (await hooks())[0]!
  await signInViewer(page, t, `${t.url}/alert_rules`)
  await rowSoon(page, 'Alert rules', RULE)
  assert.equal(await buttonNames(), ['Sign out', 'Previous', 'Next'])
  assert.equal(await axeViolations(page), [])
  await (await byRole(page, 'link', 'Webhooks')).click()
  await rowSoon(page, 'Webhooks', '/hook')
  assert.equal(await buttonNames(), ['Sign out', 'Previous', 'Next'])
  assert.equal(await allByRole(page, 'textbox'), [])
  await (await byRole(page, 'link', `Deliveries ${rx.url}/hook`)).click()
  await rowSoon(page, 'Deliveries', 'command.status')
  // a viewer reads the bodies sent (Body), and has no write control
  const names = await buttonNames()
  assert.ok(names.includes('Body'))
  assert.equal(
    names.filter((n) => n !== 'Body'),
    ['Sign out', 'Previous', 'Next'],
  )
  assert.equal(await axeViolations(page), [])
  await page.goto(`${t.url}/webhooks/${foreign.body.id}`)
  assert.is(await textOf(await byRole(page, 'alert')), 'Not found: id: not found')
  assert.ok(!(await textOf(await byRole(page, 'main'))).includes('/other'))
  assert.ok(hook.id !== foreign.body.id)
})

runWithChromium(ui)
