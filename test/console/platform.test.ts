/**
 * The console's plumbing in real Chromium against a real service whose TIMEZONE is Asia/Shanghai: one event stream
 * shared by two tabs (the server sees one connection; the other tab takes over when the leader closes; sign-out in
 * one tab signs both out), charts as wide as their region asking maxPoints = that width, a custom range typed in
 * the service's zone, and values drawn at their wire time read in that zone.
 */
import type { MqttClient } from 'mqtt'
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connectDevice, end, fullTopic, until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Wire } from '../_support/wire.ts'
import type { DataPoint } from '../../src/schemas/data-points.ts'
import type { DataStream } from '../../src/schemas/data-streams.ts'
import { byRole, runWithChromium, textOf, type InPage, type PageElement } from './_browser.ts'
import { shotCases, signInAdmin, startConsole, stopConsole } from './_setup.ts'

const TZ = 'Asia/Shanghai'
let t: TestService
let browser: Browser
let tabA: Page
let tabB: Page
let product: Awaited<ReturnType<typeof mkProduct>>
let stream: Wire<typeof DataStream>
let temp: Wire<typeof DataPoint>
const devices: NewDevice[] = []
const clients: MqttClient[] = []

const ui = suite('console plumbing in Chromium')

ui.before(async () => {
  ;({ t, browser, page: tabA } = await startConsole(1200, 900, { TIMEZONE: TZ }))
  product = await mkProduct(t.admin)
  temp = await mkPoint(t.admin, product.id, 'temp')
  stream = await mkStream(t.admin, product.productID, [temp.id], { topic: 'telemetry' })
  const tag = Date.now().toString(36)
  for (const name of [`one-${tag}`, `two-${tag}`, `chart-${tag}`])
    devices.push(await newDevice(t.admin, mqttBody(product.productID, { deviceName: name })))
})

ui.after(async () => {
  clients.forEach(end)
  await stopConsole(browser, t)
})

let current: Page | undefined
const test = shotCases(ui, 'platform', () => current ?? tabA)

/** Stream connections the service answered so far (its own metric of GET /api/v1/events/stream). */
async function streamsOpened(): Promise<number> {
  const text = (await t.anon.call('GET', '/metrics', undefined, {})).text
  const line = text
    .split('\n')
    .find((l) => l.startsWith('devicecloud_http_requests_total{') && l.includes('events/stream'))
  return line ? Number(line.split(' ').pop()) : 0
}

/** The text of the table row naming `name` ('' while none): read by evaluate, which a background tab answers. */
const rowText = (page: Page, name: string) =>
  page.evaluate(
    (name) =>
      [...(globalThis as InPage).document.querySelectorAll('tr')]
        .map((r) => r.innerText)
        .find((s) => s.includes(name)) ?? '',
    name,
  )
const online = (page: Page, name: string) =>
  until(
    () => rowText(page, name),
    (s) => /\bOnline\b/.test(s),
    5000,
  )
/** The page's buttons' texts (evaluate: a background tab answers it). */
const buttons = (page: Page) =>
  page.evaluate(() =>
    [...(globalThis as InPage).document.querySelectorAll('button')].map((b) => b.innerText),
  )

test('two tabs :: one stream connection, both show a device going Online live', async () => {
  await signInAdmin(tabA, `${t.url}/`)
  tabB = await browser.newPage()
  await tabB.setViewport({ width: 1200, height: 900 })
  await tabB.goto(`${t.url}/devices`)
  // in-app navigation: a page load would end tab A's hold of the stream; in front, since puppeteer's aria
  // queries wait for animation frames, which a background tab does not run
  await tabA.bringToFront()
  await (await byRole(tabA, 'link', 'Devices')).click()
  for (const tab of [tabA, tabB])
    await until(
      () => rowText(tab, devices[0]!.deviceName),
      (s) => /Offline/.test(s),
      5000,
    )
  assert.is(await until(streamsOpened, (n) => n >= 1, 5000), 1)
  clients.push(await connectDevice(t, devices[0]!))
  for (const tab of [tabA, tabB]) assert.match(await online(tab, devices[0]!.deviceName), /Online/)
  assert.is(await streamsOpened(), 1)
})

test('the leader tab closes :: the other opens the stream and stays live', async () => {
  const leader = await tabA.evaluate(
    async () => (await (globalThis as InPage).navigator.locks.query()).held?.[0]?.name,
  )
  assert.is(leader, 'devicecloud-stream')
  await tabA.close()
  current = tabB
  // the other tab took the stream over: a second stream was opened, and one is open now (a loaded machine may
  // see that tab's first attempt fail and retry, so the number opened is at least 2, the number open exactly 1)
  assert.ok((await until(streamsOpened, (n) => n >= 2, 5000)) >= 2)
  assert.is(await until(streamsOpen, (n) => n === 1, 5000), 1)
  clients.push(await connectDevice(t, devices[1]!))
  assert.match(await online(tabB, devices[1]!.deviceName), /Online/)
  assert.is(await streamsOpen(), 1)
})

test('sign out in one tab :: the other tab is signed out too', async () => {
  tabA = await browser.newPage()
  await tabA.goto(`${t.url}/devices`)
  await byRole(tabA, 'link', devices[0]!.deviceName)
  current = tabA
  assert.ok((await buttons(tabB)).includes('Sign out'))
  await (await byRole(tabA, 'button', 'Sign out')).click()
  await byRole(tabA, 'button', 'Sign in')
  const other = await until(
    () => buttons(tabB),
    (b) => b.includes('Sign in'),
    5000,
  )
  assert.ok(other.includes('Sign in') && !other.includes('Sign out'), String(other))
})

/** Event streams open on the service now (its gauge). */
async function streamsOpen(): Promise<number> {
  const text = (await t.anon.call('GET', '/metrics', undefined, {})).text
  const line = text.split('\n').find((l) => l.startsWith('devicecloud_stream_clients_open '))
  return line ? Number(line.split(' ').pop()) : -1
}

test('eight loads of a tab (reload, goto) :: one stream open afterwards, and the page still answers', async () => {
  await tabB.close()
  current = tabA
  await signInAdmin(tabA)
  await byRole(tabA, 'link', devices[0]!.deviceName)
  assert.is(await until(streamsOpen, (n) => n === 1, 5000), 1)
  for (let i = 0; i < 8; i++) {
    if (i % 2) await tabA.reload()
    else await tabA.goto(`${t.url}/devices?page=1&i=${i}`)
    await byRole(tabA, 'link', devices[0]!.deviceName)
  }
  // a page that is left closes its stream: one left open per load would take the browser's six connections to
  // the host, and the page's API calls would wait
  assert.is(await until(streamsOpen, (n) => n === 1, 5000), 1)
  await (await byRole(tabA, 'link', 'Groups')).click()
  await byRole(tabA, 'heading', 'Groups', 5000)
  await (await byRole(tabA, 'button', 'Sign out')).click()
  await byRole(tabA, 'button', 'Sign in')
})

/** The x extent (fraction of the canvas width) of the series' blue (#2563eb) pixels on the figure's canvases. */
const blueExtent = (figure: ElementHandle): Promise<[number, number]> =>
  figure.evaluate((f: PageElement) => {
    let min = Infinity
    let max = -Infinity
    for (const c of f.querySelectorAll('canvas')) {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data
      for (let i = 0; i < d.length; i += 4)
        if (d[i + 3]! > 0 && d[i + 2]! > 180 && d[i]! < 120) {
          const x = (i / 4) % c.width
          min = Math.min(min, x / c.width)
          max = Math.max(max, x / c.width)
        }
    }
    return [min, max] as [number, number]
  })

test(`${TZ} :: values 45 and 15 minutes old drawn a quarter and three quarters across the 1 h chart`, async () => {
  const page = tabA
  await page.setViewport({ width: 1200, height: 900 })
  const device = devices[2]!
  const mqtt = await connectDevice(t, device)
  clients.push(mqtt)
  const now = Math.floor(Date.now() / 1000)
  const topic = await fullTopic(t, device, stream.topic)
  for (const [ago, value] of [
    [45 * 60, 10],
    [15 * 60, 20],
  ] as const)
    await mqtt.publishAsync(
      topic,
      JSON.stringify({ data_type: 'event', data: { temp: { time: now - ago, value } } }),
      { qos: 1 },
    )
  const html = await t.anon.call('GET', '/', undefined, { accept: 'text/html' })
  assert.ok(html.text.includes(`<meta name="devicecloud-timezone" content="${TZ}">`), html.text)
  await signInAdmin(page)
  const asked = page.waitForRequest((r) => r.url().includes('/api/v1/original_data'))
  await page.goto(`${t.url}/devices/${device.id}`)
  const maxPoints = Number(new URL((await asked).url()).searchParams.get('maxPoints'))
  const figure = await byRole(page, 'figure', temp.dataPointName)
  const [lo, hi] = await until(
    () => blueExtent(figure),
    ([lo]) => lo < 1,
    5000,
  )
  // the plot area starts after the y axis (~10% of the canvas): 45 min old is near 0.1 + 0.9/4
  assert.ok(lo > 0.25 && lo < 0.42, `leftmost blue at ${lo}`)
  assert.ok(hi > 0.7 && hi < 0.86, `rightmost blue at ${hi}`)

  // the chart fills its region; maxPoints is that width in CSS pixels
  const width = async () =>
    (await (await figure.$('canvas'))!.evaluate((c) => c.getBoundingClientRect().width)) as number
  const region = await byRole(page, 'region', 'Charts')
  const inner = await region.evaluate((r: PageElement) => {
    const s = (globalThis as InPage).getComputedStyle(r)
    return r.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)
  })
  assert.ok(Math.abs((await width()) - inner) <= 2, `${await width()} px in ${inner} px`)
  assert.ok(Math.abs(maxPoints - inner) <= 2, `maxPoints ${maxPoints} for ${inner} px`)
  const again = page.waitForRequest((r) => r.url().includes('/api/v1/original_data'))
  await page.setViewport({ width: 700, height: 900 })
  const narrower = Number(new URL((await again).url()).searchParams.get('maxPoints'))
  assert.ok(narrower < maxPoints * 0.8, `${narrower} after ${maxPoints}`)
  assert.ok(Math.abs((await until(width, (w) => w < 700, 3000)) - narrower) <= 2)

  // a custom range typed in the service's zone: sent in the wire form, the value 15 minutes old drawn
  const wire = (s: number) =>
    new Intl.DateTimeFormat('sv-SE', {
      timeZone: TZ,
      dateStyle: 'short',
      timeStyle: 'medium',
    }).format(new Date(s * 1000))
  const setInput = async (label: string, v: string) => {
    const input = await byRole(page, 'textbox', label)
    await input.click({ count: 3 })
    await input.type(v)
  }
  await setInput('From', 'yesterday')
  await (await byRole(page, 'button', 'Show range')).click()
  assert.match(await textOf(await byRole(page, 'alert')), /YYYY-MM-DD HH:MM:SS/)
  await setInput('From', wire(now - 20 * 60))
  await setInput('To', wire(now - 10 * 60))
  const custom = page.waitForRequest((r) => r.url().includes('/api/v1/original_data'))
  await (await byRole(page, 'button', 'Show range')).click()
  const q = new URL((await custom).url()).searchParams
  assert.equal([q.get('startTime'), q.get('endTime')], [wire(now - 20 * 60), wire(now - 10 * 60)])
  const [mid] = await until(
    () => blueExtent(figure),
    ([lo]) => lo > 0.4 && lo < 0.7,
    5000,
  )
  assert.ok(mid > 0.4 && mid < 0.7, `the value 15 minutes old at ${mid}`)
})

runWithChromium(ui)
