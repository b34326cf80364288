/**
 * Console benchmark, `npm run bench -- console`, in Debian's Chromium (puppeteer-core) against the service in this
 * process (embedded stores):
 * a. the bundle gzipped: what the sign-in page loads (app.js, its static imports, app.css) and the whole console;
 * b. a device with 7 days of one data point at 1 Hz (604,800 values): picking `7 d` to the chart drawn (uPlot's
 *    draw, marked `devicecloud:chart-drawn`), against the same GET /original_data alone fetched from the page;
 * c. 100,000 devices in the tenant: a click on Devices to its rows shown; then the product's devices with 5 value
 *    columns chosen (each device has a latest value of each): a link to them clicked to the 20 rows' 100 values shown;
 * d. a value published by a real MQTT device (QoS 1) to its text on the device page, from the PUBACK, over 100;
 * e. the map with 10,000 located devices (alone in the tenant then, deleted before the others are seeded): the fleet
 *    read (`devicecloud:map-data`) to the map drawn (`devicecloud:map-drawn`), the first frame's own time, a frame
 *    while panning, and the fleet's read itself.
 * Medians of 5 after one warm-up for b, c and e.
 */
import { gzipSync } from 'node:zlib'
import puppeteer, { type Page } from 'puppeteer-core'
import { randomId } from '../src/kernel/secrets.ts'
import { buildConsole } from '../src/http/console.ts'
import { mountpoint } from '../src/kernel/topics.ts'
import { connect } from '../test/ingest/_mqtt.ts'
import { table } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

// the page's globals, for the functions evaluated in Chromium (this project's tsconfig has no DOM library): the
// little of them those functions use
interface PageElement {
  textContent: string | null
  href?: string
  click(): void
  append(child: PageElement): void
}
interface ResourceEntry {
  name: string
  startTime: number
  responseEnd: number
}
declare const document: {
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number }
  querySelector(selector: string): PageElement | null
  createElement(tag: string): PageElement
  body: { innerText: string }
}
declare const window: object
declare const history: { pushState(data: unknown, unused: string, url: string): void }
declare function dispatchEvent(e: object): boolean
declare function requestAnimationFrame(callback: () => void): number
declare class PopStateEvent {
  constructor(type: string)
}
declare class PointerEvent {
  constructor(type: string, init: object)
}
declare const localStorage: {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}
declare class MutationObserver {
  constructor(callback: () => void)
  observe(target: object, options: object): void
  disconnect(): void
}

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000)
const LOCATED = Number(process.env.BENCH_LOCATED ?? 10_000)
const SECONDS = 7 * 24 * 3600
const RUNS = 5
const PUBLISHES = 100
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!
const kb = (n: number) => (n / 1024).toFixed(1)
const cpu0 = process.cpuUsage()

// a. bundle sizes
const bundle = await buildConsole()
const gz = (name: string) => gzipSync(bundle.get(name)!.body).length
const signInFiles = new Set<string>(['app.css'])
const walk = (name: string) => {
  if (signInFiles.has(name)) return
  signInFiles.add(name)
  for (const m of bundle
    .get(name)!
    .body.matchAll(/(?:from|import)\s*"\.\/(?:chunks\/)?([\w-]+\.js)"/g))
    walk(`chunks/${m[1]}`)
}
walk('app.js')
const signInGz = [...signInFiles].reduce((s, f) => s + gz(f), 0)
const wholeGz = [...bundle.keys()].reduce((s, f) => s + gz(f), 0)

const b = await startBenchService('console')
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--lang=en-US'],
})
const page: Page = await browser.newPage()
await page.setViewport({ width: 1280, height: 900 })
// tsx names inner functions with a helper `__name`, absent from the page the functions are evaluated in
await page.evaluateOnNewDocument('globalThis.__name = (f) => f')
await page.goto(`${b.svc.url}/`)
await page.evaluate(
  (token, tenantID) =>
    localStorage.setItem(
      'devicecloud.session',
      JSON.stringify({ token, email: 'b@b.io', username: 'b', role: 'admin', tenantID }),
    ),
  b.token,
  b.tenantID,
)
await page.goto(`${b.svc.url}/`) // signed in now

// e. the map, first: LOCATED devices spread over Europe, a third online, then deleted
const mapProduct = await b.api('POST', '/api/v1/products', { productName: 'map', cloudProtocol: 1 })
const mapSql = await b.seedDevices(
  mapProduct.id,
  Array.from({ length: LOCATED }, (_, i) => ({
    deviceID: `m-${i}`,
    username: randomId(36),
    token: randomId(36),
  })),
)
await mapSql.run(
  `UPDATE devices SET latitude = 35 + ((id * 7919) % 2500) / 100.0, longitude = -10 + ((id * 104729) % 4000) / 100.0,
     device_status = CASE WHEN id % 3 = 0 THEN 1 ELSE 0 END WHERE product_int_id = ?`,
  [mapProduct.id],
)
/** One visit of /map: ms from the fleet read to the map drawn, the first frame's ms, a pan frame's, the read's. */
const mapVisit = async () => {
  await page.evaluate(() => {
    performance.clearMarks()
    history.pushState(null, '', '/')
    dispatchEvent(new PopStateEvent('popstate'))
  })
  await new Promise((r) => setTimeout(r, 300))
  const t0 = await page.evaluate(() => {
    history.pushState(null, '', '/map')
    dispatchEvent(new PopStateEvent('popstate'))
    return performance.now()
  })
  await page.waitForFunction(
    () => performance.getEntriesByName('devicecloud:map-drawn').length > 0,
    {
      timeout: 60_000,
    },
  )
  return page.evaluate(async (t0) => {
    const data = performance.getEntriesByName('devicecloud:map-data')[0]!
    const drawn = performance.getEntriesByName('devicecloud:map-drawn')[0] as unknown as {
      startTime: number
      detail: unknown
    }
    const first = (drawn.detail as { ms: number }).ms
    // a pan: drags the map by 200 px in 20 steps, then reads the last frame's own time
    const view = document.querySelector('.map-view') as unknown as {
      dispatchEvent(e: object): void
      dataset: { frameMs?: string }
      getBoundingClientRect(): { left: number; top: number }
    }
    const r = view.getBoundingClientRect()
    const at = (type: string, x: number) =>
      new PointerEvent(type, {
        pointerId: 1,
        button: 0,
        clientX: r.left + x,
        clientY: r.top + 300,
        bubbles: true,
      })
    view.dispatchEvent(at('pointerdown', 400))
    const frames: number[] = []
    for (let i = 1; i <= 20; i++) {
      view.dispatchEvent(at('pointermove', 400 + i * 10))
      await new Promise<void>((f) => requestAnimationFrame(() => f()))
      await new Promise<void>((f) => requestAnimationFrame(() => f()))
      frames.push(Number(view.dataset.frameMs))
    }
    view.dispatchEvent(at('pointerup', 600))
    frames.sort((a, b) => a - b)
    return [drawn.startTime - data.startTime, first, frames[10]!, data.startTime - t0]
  }, t0)
}
await mapVisit() // warm-up
const mapRuns: number[][] = []
for (let i = 0; i < RUNS; i++) mapRuns.push(await mapVisit())
const mapMarkers = await page.evaluate(
  () =>
    (
      document.querySelector('.map-view') as unknown as { dataset: { markers: string } }
    ).dataset.markers.split(' ').length,
)
await mapSql.run('DELETE FROM devices WHERE product_int_id = ?', [mapProduct.id])
void mapSql.close()
const mapCol = (k: number) => median(mapRuns.map((r) => r[k]!))

// the service: one product of 5 data points, DEVICES devices with a latest value of each, one with 7 days of p0
const VALUE_COLUMNS = 5
const product = await b.telemetryProduct(VALUE_COLUMNS)
const devices = Array.from({ length: DEVICES }, (_, i) => ({
  deviceID: `c-${String(i).padStart(6, '0')}`,
  username: randomId(36),
  token: randomId(36),
}))
const s0 = performance.now()
void (await b.seedDevices(product.id, devices)).close()
const seedSeconds = (performance.now() - s0) / 1000
const target = devices[0]!
const detail = (await b.api('GET', `/api/v1/devices?deviceName=${target.deviceID}`)).items[0]!
const end = Date.now()
const w0 = performance.now()
for (let s = 0; s < SECONDS; s += 100_000) {
  const n = Math.min(100_000, SECONDS - s)
  await b.svc.deps.telemetry.write(
    Array.from({ length: n }, (_, i) => ({
      tenantID: b.tenantID,
      productID: product.productID,
      deviceID: target.deviceID,
      dataPointID: 'p0',
      time: end - (SECONDS - s - i) * 1000,
      value: Math.sin((s + i) / 3600) * 20 + 20,
    })),
  )
}
const writeSeconds = (performance.now() - w0) / 1000

/** Clicks the button or link whose text is `label`; answers ms until `done()` holds (checked on each mutation). */
const clickUntil = (label: string, done: string) =>
  page.evaluate(
    (label, done) =>
      new Promise<number>((resolve) => {
        // the page's own check, a bench constant (listDone)
        // eslint-disable-next-line @typescript-eslint/no-implied-eval
        const check = new Function(`return (${done})`) as () => boolean
        const el = [...document.querySelectorAll('button, a')].find((e) => e.textContent === label)!
        const t0 = performance.now()
        const obs = new MutationObserver(() => {
          if (!check()) return
          obs.disconnect()
          resolve(performance.now() - t0)
        })
        obs.observe(document.body, { childList: true, subtree: true, characterData: true })
        el.click()
      }),
    label,
    done,
  )

// b. 7 days on the device page
await page.goto(`${b.svc.url}/devices/${detail.id}`)
await page.waitForSelector('figure.chart canvas')
let originalURL = ''
page.on('request', (r) => {
  if (r.url().includes('/api/v1/original_data')) originalURL = r.url()
})
const pickSeven = () =>
  page.evaluate(async () => {
    const seven = [...document.querySelectorAll('button')].find((e) => e.textContent === '7 d')!
    const hour = [...document.querySelectorAll('button')].find((e) => e.textContent === '1 h')!
    const drawnAfter = (t0: number) =>
      new Promise<number>((resolve) => {
        const poll = () => {
          const m = performance
            .getEntriesByName('devicecloud:chart-drawn')
            .find((e) => e.startTime > t0)
          if (m) resolve(m.startTime - t0)
          else setTimeout(poll, 2)
        }
        poll()
      })
    hour.click()
    await drawnAfter(performance.now())
    await new Promise((r) => setTimeout(r, 300))
    performance.clearResourceTimings()
    const t0 = performance.now()
    seven.click()
    const ms = await drawnAfter(t0)
    // where the time went: each API call's start and end after the click
    const calls = performance
      .getEntriesByType('resource')
      .filter((e) => e.name.includes('/api/v1/'))
      .map((e) => e as unknown as ResourceEntry)
      .map(
        (e) =>
          `${e.name.replace(/^.*\/api\/v1\/([\w_]+).*$/, '$1')} ${(e.startTime - t0).toFixed(0)}-${(e.responseEnd - t0).toFixed(0)}`,
      )
    return [ms, calls.join(', ')] as const
  })
const callAlone = (url: string) =>
  page.evaluate(async (url) => {
    const s = JSON.parse(localStorage.getItem('devicecloud.session')!) as { token: string }
    const t0 = performance.now()
    const r = await fetch(url, { headers: { authorization: `Bearer ${s.token}` } })
    const body = (await r.json()) as Array<{ originalData: { time: unknown[] } }>
    return [performance.now() - t0, body[0]?.originalData.time.length ?? 0]
  }, url)
await pickSeven() // warm-up
const drawn: number[] = []
const breakdown: string[] = []
const alone: number[] = []
let points = 0
for (let i = 0; i < RUNS; i++) {
  const [drawnMs, calls] = await pickSeven()
  drawn.push(drawnMs)
  breakdown.push(calls)
  const [aloneMs, n] = await callAlone(originalURL)
  alone.push(aloneMs!)
  points = n!
}
const maxPoints = new URL(originalURL).searchParams.get('maxPoints')

// c. Devices: click to rows
const listDone = `document.querySelectorAll('tbody tr a[href^="/devices/"]').length > 0`
const list: number[] = []
for (let i = 0; i <= RUNS; i++) {
  await page.evaluate(() =>
    [...document.querySelectorAll('a')].find((e) => e.textContent === 'Overview')!.click(),
  )
  await page.waitForFunction(() => !document.querySelector('tbody tr a[href^="/devices/"]'))
  await new Promise((r) => setTimeout(r, 300))
  const ms = await clickUntil('Devices', listDone)
  if (i > 0) list.push(ms)
}

// (written after b and c: the store compacts them in the background for a while, see bench/README.md)
const l0 = performance.now()
for (let d = 0; d < DEVICES; d += 20_000) {
  await b.svc.deps.telemetry.write(
    devices.slice(d, d + 20_000).flatMap((dev, i) =>
      Array.from({ length: VALUE_COLUMNS }, (_, k) => ({
        tenantID: b.tenantID,
        productID: product.productID,
        deviceID: dev.deviceID,
        dataPointID: `p${k}`,
        time: end - 60_000 + k,
        value: ((d + i) % 1000) / 10 + k,
      })),
    ),
  )
}
const latestSeconds = (performance.now() - l0) / 1000
// then measured once the store has flushed them to chunks (a burst of 500,000 new series is no steady state; the
// first visit, while it flushes, is printed beside)
const store = b.svc.deps.telemetry as { flush?: () => Promise<void> }
const flushing: number[] = []
let flushSeconds = 0
// c2. the product's devices with 5 value columns (chosen as the Columns menu keeps them): a link clicked to the 20
// rows' 100 values shown
await page.evaluate(
  (key, points) => localStorage.setItem(key, JSON.stringify({ points, softVersion: false })),
  `devicecloud.columns.${product.productID}`,
  Array.from({ length: VALUE_COLUMNS }, (_, k) => `p${k}`),
)
const valuesDone =
  `document.querySelectorAll('tbody tr a[href^="/devices/"]').length === 20 && ` +
  `[...document.querySelectorAll('tbody span.num')].filter((e) => e.textContent !== '—').length === ${20 * VALUE_COLUMNS}`
const withValues: number[] = []
for (let i = 0; i <= RUNS; i++) {
  if (i === 1) {
    const q0 = performance.now()
    await store.flush?.()
    flushSeconds = (performance.now() - q0) / 1000
  }
  await page.evaluate(() =>
    [...document.querySelectorAll('a')].find((e) => e.textContent === 'Overview')!.click(),
  )
  await page.waitForFunction(() => !document.querySelector('tbody tr a[href^="/devices/"]'))
  await page.evaluate((productID) => {
    const a = document.createElement('a')
    a.href = `/devices?productID=${productID}`
    a.textContent = 'bench: the product devices'
    document.querySelector('main')!.append(a)
  }, product.productID)
  await new Promise((r) => setTimeout(r, 300))
  const ms = await clickUntil('bench: the product devices', valuesDone)
  if (i > 0) withValues.push(ms)
  else flushing.push(ms)
}

// d. MQTT value to the device page, from its PUBACK
await page.goto(`${b.svc.url}/devices/${detail.id}`)
await page.waitForSelector('figure.chart canvas')
await page.evaluate(() => {
  const w = window as unknown as { seen: Record<string, number> }
  w.seen = {}
  new MutationObserver(() => {
    const text = document.body.innerText
    for (const m of text.matchAll(/\b9(\d{4})\b/g)) w.seen[m[0]] ??= Date.now()
  }).observe(document.body, { childList: true, subtree: true, characterData: true })
})
const mqttClient = (
  await connect(`mqtt://127.0.0.1:${b.svc.deps.broker.port}`, {
    clientId: target.deviceID,
    username: target.username,
    password: target.token,
  })
).client
const topic = `${mountpoint({ cloudProtocol: 1, tenantID: b.tenantID, productID: product.productID, deviceID: target.deviceID })}telemetry`
const acked: Record<string, number> = {}
const mqCpu0 = process.cpuUsage()
const pageTask0 = (await page.metrics()).TaskDuration ?? 0
for (let i = 0; i < PUBLISHES; i++) {
  const v = String(90000 + i)
  await mqttClient.publishAsync(topic, JSON.stringify({ p0: Number(v) }), { qos: 1 })
  acked[v] = Date.now()
  await new Promise((r) => setTimeout(r, 100))
}
await new Promise((r) => setTimeout(r, 1500))
const seen = await page.evaluate(() => (window as unknown as { seen: Record<string, number> }).seen)
const lat = Object.keys(acked).map((v) => (seen[v] ?? Infinity) - acked[v]!)
const mqCpu = process.cpuUsage(mqCpu0)
const pageTask = ((await page.metrics()).TaskDuration ?? 0) - pageTask0
mqttClient.end(true)

const cpu = process.cpuUsage(cpu0)
console.log(
  `setup: ${DEVICES.toLocaleString('en-US')} devices seeded in ${seedSeconds.toFixed(1)} s, ` +
    `${SECONDS.toLocaleString('en-US')} values written in ${writeSeconds.toFixed(1)} s, ` +
    `${(DEVICES * VALUE_COLUMNS).toLocaleString('en-US')} latest values in ${latestSeconds.toFixed(1)} s\n`,
)
console.log(
  table(
    ['measure', 'figure', 'target', 'ok'],
    [
      ['sign-in JS+CSS gzipped', `${kb(signInGz)} KB`, '<= 40 KB', signInGz <= 40 * 1024],
      ['whole console gzipped', `${kb(wholeGz)} KB`, '<= 160 KB', wholeGz <= 160 * 1024],
      [
        `7 d picked -> chart drawn (median of ${RUNS}; maxPoints ${maxPoints}, ${points} points)`,
        `${median(drawn).toFixed(0)} ms`,
        '<= 300 ms',
        median(drawn) <= 300,
      ],
      ['same original_data call alone, from the page', `${median(alone).toFixed(0)} ms`, '', ''],
      [
        'ratio drawn / call alone',
        `${(median(drawn) / median(alone)).toFixed(2)}x`,
        '<= 1.5x',
        median(drawn) / median(alone) <= 1.5,
      ],
      [
        `Devices click -> rows (${DEVICES.toLocaleString('en-US')} devices, median of ${RUNS})`,
        `${median(list).toFixed(0)} ms`,
        '<= 200 ms',
        median(list) <= 200,
      ],
      [
        `the product's devices, ${VALUE_COLUMNS} value columns: click -> 20 rows' values (median of ${RUNS})`,
        `${median(withValues).toFixed(0)} ms`,
        '<= 300 ms',
        median(withValues) <= 300,
      ],
      [
        `map, ${LOCATED.toLocaleString('en-US')} located: fleet read -> drawn (median of ${RUNS}; ${mapMarkers} markers)`,
        `${mapCol(0).toFixed(0)} ms`,
        '<= 500 ms',
        mapCol(0) <= 500,
      ],
      [
        'map: its first frame / a frame while panning',
        `${mapCol(1).toFixed(1)} / ${mapCol(2).toFixed(1)} ms`,
        '',
        '',
      ],
      [
        `map: the fleet read (${Math.ceil(LOCATED / 5000)} pages of GET /devices_located)`,
        `${mapCol(3).toFixed(0)} ms`,
        '',
        '',
      ],
      [
        `MQTT value on the page after PUBACK, p50 / p99 of ${PUBLISHES}`,
        `${pct(lat, 50)} / ${pct(lat, 99)} ms`,
        'p99 <= 1000 ms',
        pct(lat, 99) <= 1000,
      ],
    ].map((r) => r.map((c) => (c === true ? 'yes' : c === false ? 'NO' : c))),
  ),
)
console.log(
  `\nruns: drawn ${drawn.map((x) => x.toFixed(0)).join(', ')} ms; alone ${alone.map((x) => x.toFixed(0)).join(', ')} ms; ` +
    `list ${list.map((x) => x.toFixed(0)).join(', ')} ms; with values ${withValues.map((x) => x.toFixed(0)).join(', ')} ms ` +
    `(${flushing[0]!.toFixed(0)} ms while the store flushed the latest values, flushed ${flushSeconds.toFixed(1)} s later)`,
)
console.log(`API calls of the 7 d pick (ms after the click): ${breakdown.join(' | ')}`)
console.log(
  `during d (${PUBLISHES} publishes, ~${((PUBLISHES * 100) / 1000).toFixed(0)} s): bench process (service, MQTT ` +
    `device, puppeteer) CPU ${((mqCpu.user + mqCpu.system) / 1000).toFixed(0)} ms, the page's main thread busy ` +
    `${(pageTask * 1000).toFixed(0)} ms; bench process CPU overall ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
)
await browser.close()
await b.close()
