/**
 * The map page in real Chromium against the real service, its tiles served by an HTTP server of this test
 * (MAP_TILE_URL names it): tiles requested and drawn with the attribution shown and the tile host in the page's
 * policy; three devices near each other one cluster of 3 at low zoom, split by a click on it; a click on a device
 * opening its page; a device connecting over MQTT turning its marker green live; a device located by its
 * geolocation data point, moved live by what it publishes; a second tenant's devices never shown; a viewer's map;
 * axe-core at 1440x900 and 390x844 and no sideways scroll at 390 px; with the tile server failing, the built-in
 * world outline drawn (canvas pixels) and a note saying so.
 */
import { mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'
import type { MqttClient } from 'mqtt'
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connectDevice, end, fullTopic, until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../src/routes/devices-helpers.ts'
import {
  ARTIFACTS,
  axeViolations,
  byRole,
  matchesSoon,
  rowSoon,
  runWithChromium,
  textOf,
  type InPage,
} from './_browser.ts'
import { goTo, shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

/** The tiles' colour: a magenta nothing else on the page has. */
const TILE_RGB = [214, 40, 170] as const
/** The outline's sea and land (src/console/map/outline.ts). */
const SEA = [0xc6, 0xdb, 0xef] as const
const LAND = [0xf1, 0xef, 0xe6] as const
/** The markers: online, offline (src/console/map/markers.ts). */
const ONLINE = [0x15, 0x80, 0x3d] as const
const OFFLINE = [0x4b, 0x55, 0x63] as const

let t: TestService
let browser: Browser
let page: Page
let tiles: Server
let failTiles = false
const tileRequests: string[] = []
const tag = Date.now().toString(36)
/** Three devices in Lyon a few hundred metres apart, one in New York. */
const lyon: NewDevice[] = []
let walker: NewDevice
let walkerTopic = ''
const clients: MqttClient[] = []

/** A 256x256 PNG of one colour. */
function solidPng([r, g, b]: readonly number[]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(12 + data.length)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(256, 0)
  header.writeUInt32BE(256, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits, RGB
  const row = Buffer.alloc(1 + 256 * 3)
  for (let x = 0; x < 256; x++) row.set([r!, g!, b!], 1 + x * 3)
  const pixels = Buffer.concat(Array.from({ length: 256 }, () => row))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** The tile server: every /tiles/z/x/y.png the tile colour, not cached; a 503 while `failTiles`. */
async function startTiles(): Promise<Server> {
  const png = solidPng(TILE_RGB)
  const server = createServer((req, res) => {
    tileRequests.push(req.url ?? '')
    if (failTiles || !/^\/tiles\/\d+\/\d+\/\d+\.png$/.test(req.url ?? ''))
      return res.writeHead(503).end()
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(png)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return server
}

const ui = suite('map page in Chromium')

ui.before(async () => {
  tiles = await startTiles()
  const port = (tiles.address() as AddressInfo).port
  ;({ t, browser, page } = await startConsole(1440, 900, {
    MAP_TILE_URL: `http://127.0.0.1:${port}/tiles/{z}/{x}/{y}.png`,
    MAP_TILE_ATTRIBUTION: '© Test tiles',
  }))
  const product = await newProduct(t.admin)
  const spots = [
    [45.764, 4.8357],
    [45.7652, 4.8371],
    [45.7631, 4.8379],
  ]
  for (const [i, [lat, lon]] of spots.entries())
    lyon.push(
      await newDevice(
        t.admin,
        mqttBody(product.productID, {
          deviceName: `lyon-${i}-${tag}`,
          latitude: lat,
          longitude: lon,
        }),
      ),
    )
  await newDevice(
    t.admin,
    mqttBody(product.productID, { deviceName: `nyc-${tag}`, latitude: 40.71, longitude: -74 }),
  )
  await newDevice(t.admin, mqttBody(product.productID, { deviceName: `nowhere-${tag}` }))
  await geolocatedDevice()
  await otherTenant()
  await signInAdmin(page, t.url)
})

/** A device without coordinates on a product with a geolocation point `loc`, which it has sent once. */
async function geolocatedDevice() {
  const product = await newProduct(t.admin)
  const loc = await mkPoint(t.admin, product.id, 'loc', { pointDataType: 6 })
  await mkStream(t.admin, product.productID, [loc.id], { topic: 'telemetry' })
  walker = await newDevice(t.admin, mqttBody(product.productID, { deviceName: `walker-${tag}` }))
  walkerTopic = await fullTopic(t, walker, 'telemetry')
  const client = await connectDevice(t, walker)
  clients.push(client)
  await client.publishAsync(walkerTopic, JSON.stringify({ loc: '-73.99,40.75' }), { qos: 1 })
  await until(
    async () => (await t.admin.get(`/api/v1/devices/${walker.id}/latest`)).body,
    (rows: Array<{ value: unknown }>) => rows.some((r) => r.value !== null),
  )
}

/** A second tenant with a device in Lyon too. */
async function otherTenant() {
  const other = await t.newTenant()
  const p = await newProduct(other)
  await newDevice(
    other,
    mqttBody(p.productID, { deviceName: `theirs-${tag}`, latitude: 45.764, longitude: 4.836 }),
  )
}

ui.after(async () => {
  for (const c of clients) end(c)
  await stopConsole(browser, t)
  await new Promise((r) => tiles?.close(r))
})

const test = shotCases(ui, 'map', () => page)

const mapView = () => byRole(page, 'application', 'Map of located devices')
const attr = (el: ElementHandle, name: string) =>
  el.evaluate(
    (e, n) => (e as unknown as { getAttribute(n: string): string | null }).getAttribute(n),
    name,
  )

/** The markers the map's last frame drew: position in the map (CSS px), devices, of them online. */
async function markers() {
  const text = (await attr(await mapView(), 'data-markers')) ?? ''
  return text
    .split(' ')
    .filter(Boolean)
    .map((m) => m.split(',').map(Number) as [number, number, number, number])
}

/** Clicks the map at a position of it. */
async function clickMap(x: number, y: number) {
  const box = (await (await mapView()).boundingBox())!
  await page.mouse.click(box.x + x, box.y + y)
}

type Rgb = readonly [number, number, number] | readonly number[]
const near = (a: Rgb, b: Rgb, by = 12) => a.every((v, i) => Math.abs(v - b[i]!) <= by)

/**
 * The map as it is on screen (a screenshot of its element, read in the page: the canvas itself is not readable
 * once it has drawn another origin's tiles): the colours at some positions, and the share of its pixels near
 * each of some colours.
 */
async function mapPixels(at: Array<[number, number]>, colours: Rgb[]) {
  const png = await (await mapView()).screenshot({ encoding: 'base64' })
  return page.evaluate(
    async (png, at, colours) => {
      interface Ctx2d {
        drawImage(i: unknown, x: number, y: number): void
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray }
      }
      const g = globalThis as unknown as {
        Image: new () => { src: string; width: number; height: number; decode(): Promise<void> }
        document: {
          createElement(t: 'canvas'): { width: number; height: number; getContext(k: '2d'): Ctx2d }
        }
      }
      const img = new g.Image()
      img.src = `data:image/png;base64,${png}`
      await img.decode()
      const c = g.document.createElement('canvas')
      ;[c.width, c.height] = [img.width, img.height]
      const ctx = c.getContext('2d')
      ctx.drawImage(img, 0, 0)
      const d = ctx.getImageData(0, 0, img.width, img.height).data
      const shares = colours.map(() => 0)
      for (let i = 0; i < d.length; i += 4)
        for (let k = 0; k < colours.length; k++) {
          let ok = true
          for (let j = 0; j < 3; j++) ok &&= Math.abs(d[i + j]! - colours[k]![j]!) <= 12
          if (ok) shares[k]!++
        }
      const colourAt: number[][] = []
      for (const [x, y] of at) {
        const i = (Math.round(y) * img.width + Math.round(x)) * 4
        colourAt.push([d[i]!, d[i + 1]!, d[i + 2]!])
      }
      return { at: colourAt, shares: shares.map((n) => n / (d.length / 4)) }
    },
    png,
    at,
    colours as number[][],
  )
}

const heading = (text: string) => byRole(page, 'heading', text, 15_000)

test('tiles :: requested from MAP_TILE_URL and drawn over the map, the attribution shown, the tile host allowed by the policy', async () => {
  await goTo(page, '/map')
  await heading('Located devices: 5')
  await until(
    async () => Number(await attr(await mapView(), 'data-tiles')),
    (n) => n > 0,
    10_000,
  )
  assert.ok(
    tileRequests.some((u) => /^\/tiles\/\d+\/\d+\/\d+\.png$/.test(u)),
    tileRequests.join(),
  )
  const { shares } = await mapPixels([], [TILE_RGB])
  assert.ok(shares[0]! > 0.5, `tile colour on ${(shares[0]! * 100).toFixed(0)}% of the map`)
  assert.match(await textOf(await byRole(page, 'region', 'Device map')), '© Test tiles')
  const r = await t.anon.call('GET', '/map', undefined, { accept: 'text/html' })
  const port = (tiles.address() as AddressInfo).port
  assert.match(
    r.headers.get('content-security-policy')!,
    `img-src 'self' data: http://127.0.0.1:${port};`,
  )
  assert.match(
    r.text,
    `<meta name="devicecloud-map-tiles" content="http://127.0.0.1:${port}/tiles/{z}/{x}/{y}.png">`,
  )
})

/** The markers once `ok` holds for them (the map draws on the next frame). */
const markersSoon = (ok: (ms: Awaited<ReturnType<typeof markers>>) => boolean) =>
  until(markers, ok, 8000)

test('clusters :: the three devices near each other one cluster of 3 at low zoom; a click on it zooms in and splits them', async () => {
  const before = await markersSoon((ms) => ms.some((m) => m[2] === 3))
  const cluster = before.find((m) => m[2] === 3)!
  // New York's device and the walker (5 km away) are the other cluster
  assert.equal(before.map((m) => m[2]).sort(), [2, 3])
  await clickMap(cluster[0], cluster[1])
  const after = await markersSoon((ms) => ms.length === 3 && ms.every((m) => m[2] === 1))
  // each is drawn where it says, as an offline marker (a grey square)
  const { at } = await mapPixels(
    after.map(([x, y]) => [x, y]),
    [],
  )
  for (const c of at) assert.ok(near(c, OFFLINE), `offline grey at a marker: ${c.join()}`)
  assert.match(await textOf(await byRole(page, 'table', 'Devices in view')), `lyon-0-${tag}`)
  assert.match(
    await textOf(await byRole(page, 'heading', 'Located devices: 5')),
    'Located devices: 5',
  )
})

test('live :: a device connecting over MQTT turns its marker green and its row Online, without a reload', async () => {
  const client = await connectDevice(t, lyon[0]!)
  clients.push(client)
  const ms = await markersSoon((ms) => ms.some((m) => m[3] === 1))
  const on = ms.find((m) => m[3] === 1)!
  const { at } = await mapPixels([[on[0], on[1]]], [])
  assert.ok(near(at[0]!, ONLINE), `online green at the marker: ${at[0]!.join()}`)
  const row = await rowSoon(page, 'Devices in view', `lyon-0-${tag}`)
  await matchesSoon(() => textOf(row!), /Online/)
  end(client)
  await markersSoon((ms) => ms.every((m) => m[3] === 0))
})

test('open :: a click on a device opens its page', async () => {
  const ms = await markers()
  assert.is(ms.length, 3)
  await clickMap(ms[0]![0], ms[0]![1])
  await until(
    () =>
      page.evaluate(
        () => (globalThis as InPage & { location: { pathname: string } }).location.pathname,
      ),
    (p) => /^\/devices\/\d+$/.test(p),
  )
  const path = await page.evaluate(
    () => (globalThis as InPage & { location: { pathname: string } }).location.pathname,
  )
  assert.ok(
    lyon.some((d) => path === `/devices/${d.id}`),
    `${path} is a Lyon device's page`,
  )
  await byRole(page, 'heading', lyon.find((d) => path === `/devices/${d.id}`)!.deviceName)
})

test('geolocation :: a device without coordinates located by its geolocation point, moved live by what it sends', async () => {
  await goTo(page, '/map')
  await heading('Located devices: 5')
  const row = await rowSoon(page, 'Devices in view', `walker-${tag}`)
  assert.ok(row, 'the walker is listed')
  assert.match(await textOf(row), /40\.75000\s+-73\.99000\s+Data point loc/)
  await clients[0]!.publishAsync(walkerTopic, JSON.stringify({ loc: [-74.01, 40.72] }), { qos: 1 })
  await matchesSoon(
    async () => textOf((await rowSoon(page, 'Devices in view', `walker-${tag}`))!),
    /40\.72000\s+-74\.01000\s+Data point loc/,
  )
})

test("tenants :: a second tenant's device in Lyon is never shown", async () => {
  const table = await textOf(await byRole(page, 'table', 'Devices in view'))
  assert.not.match(table, `theirs-${tag}`)
  await heading('Located devices: 5')
})

test('viewer :: sees the map and its devices', async () => {
  await signInViewer(page, t, `${t.url}/map`)
  await heading('Located devices: 5')
  await rowSoon(page, 'Devices in view', `nyc-${tag}`)
  await byRole(page, 'button', 'Zoom in')
  await byRole(page, 'button', 'Zoom out')
})

/** The page's width beyond the viewport (0: no sideways scroll). */
const extraWidth = () =>
  page.evaluate(() => {
    const d = (
      globalThis as unknown as {
        document: { documentElement: { clientWidth: number; scrollWidth: number } }
      }
    ).document
    return d.documentElement.scrollWidth - d.documentElement.clientWidth
  })

test('a11y :: axe finds nothing serious at 1440x900 and 390x844; no sideways scroll at 390 px', async () => {
  for (const [w, h] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    await page.setViewport({ width: w, height: h })
    await goTo(page, '/')
    await goTo(page, '/map')
    await heading('Located devices: 5')
    await rowSoon(page, 'Devices in view', `nyc-${tag}`)
    assert.equal(await axeViolations(page), [], `${w} px`)
    assert.is(await extraWidth(), 0, `${w} px: no sideways scroll`)
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, `map-${w}.png`), fullPage: true })
  }
  await page.setViewport({ width: 1440, height: 900 })
})

test('no tiles :: the tile server failing, the built-in world outline is drawn and a note says so', async () => {
  failTiles = true
  const failedBefore = tileRequests.length
  await page.goto(`${t.url}/map`)
  await heading('Located devices: 5')
  await byRole(page, 'button', 'Zoom out')
  for (let i = 0; i < 4; i++) await (await byRole(page, 'button', 'Zoom out')).click()
  await matchesSoon(
    async () => textOf(await byRole(page, 'region', 'Device map')),
    /Map tiles could not be loaded/,
    10_000,
  )
  assert.ok(tileRequests.length > failedBefore, 'tiles were asked for')
  const { shares } = await mapPixels([], [SEA, LAND])
  assert.ok(shares[0]! > 0.2, `sea on ${(shares[0]! * 100).toFixed(0)}%`)
  assert.ok(shares[1]! > 0.1, `land on ${(shares[1]! * 100).toFixed(0)}%`)
  failTiles = false
})

runWithChromium(ui)
