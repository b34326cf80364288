/**
 * The map page's parts that need no browser: the built-in world outline is what scripts/world-outline.ts makes of
 * world-atlas (and decodes back to its points, no ring across the map); Web Mercator and the view's limits;
 * clustering (near devices one cluster at low zoom, apart at high zoom, every device in exactly one cluster, 10,000
 * devices clustered in a few ms); MAP_TILE_URL and MAP_TILE_ATTRIBUTION as the service reads them.
 */
import { readFileSync } from 'node:fs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { clusterAt, type Points } from '../../src/console/map/cluster.ts'
import * as m from '../../src/console/map/mercator.ts'
import { decodeLines } from '../../src/console/map/outline-text.ts'
import { BORDERS, LAND } from '../../src/console/map/world-110m.ts'
import { tileAttribution, tileSource } from '../../src/http/console.ts'
import { ConfigError, loadConfig } from '../../src/kernel/config.ts'
import { encodeLines, OUTLINE_FILE, worldOutlineModule } from '../../scripts/world-outline.ts'

const unit = suite('map without a browser')

unit('the world outline :: the committed file is what scripts/world-outline.ts writes', () => {
  assert.is(readFileSync(OUTLINE_FILE, 'utf8'), worldOutlineModule())
})

unit('the world outline :: decodes back to the points encoded, rounded to 1/20 degree', () => {
  const line: Array<[number, number]> = [
    [-179.99, -89],
    [0.024, 0.026],
    [0.02, 0.03],
    [123.456, 45.678],
  ]
  const [decoded] = decodeLines(encodeLines([line], 2))
  assert.equal(decoded, [-180, -85.05, 0, 0.05, 123.45, 45.7])
  const land = decodeLines(LAND)
  const borders = decodeLines(BORDERS)
  assert.ok(
    land.length > 100 && borders.length > 100,
    `${land.length} rings, ${borders.length} lines`,
  )
  // rings are planar: no step across the world but along a pole (Antarctica closed along the south pole)
  for (const ring of land)
    for (let i = 2; i < ring.length; i += 2)
      if (Math.abs(ring[i]! - ring[i - 2]!) > 90)
        assert.is(ring[i + 1], -85.05, 'only along the pole')
  // Iceland is one of its rings; a border passes by Lake Constance
  const lons = (l: number[]) => l.filter((_, i) => i % 2 === 0)
  const lats = (l: number[]) => l.filter((_, i) => i % 2 === 1)
  assert.ok(
    land.some(
      (r) =>
        Math.min(...lons(r)) > -25 &&
        Math.max(...lons(r)) < -13 &&
        Math.min(...lats(r)) > 63 &&
        Math.max(...lats(r)) < 67,
    ),
    'Iceland',
  )
  const near = (lines: number[][], lon: number, lat: number) =>
    lines.some((l) => l.some((v, i) => i % 2 === 0 && Math.hypot(v - lon, l[i + 1]! - lat) < 0.5))
  assert.ok(near(borders, 9.5, 47.6), 'Lake Constance')
})

unit('mercator :: projects and back; the view stays within the world and its zooms', () => {
  for (const [lon, lat] of [
    [0, 0],
    [2.35, 48.85],
    [-74, 40.71],
    [151.2, -33.86],
  ] as const) {
    const [x, y] = m.project(lon, lat)
    const [lon2, lat2] = m.unproject(x, y)
    assert.ok(Math.abs(lon2 - lon) < 1e-9 && Math.abs(lat2 - lat) < 1e-9, `${lon},${lat}`)
  }
  assert.equal(m.project(-180, 90), [0, m.project(0, m.MAX_LAT)[1]])
  const v: m.View = { x: 0.01, y: 0.5, zoom: -3, width: 1024, height: 600 }
  const c = m.clampView(v)
  assert.is(c.zoom, 2, 'the world at least as wide as the view')
  assert.is(c.x, 0.5, 'no band beside the world')
  // zooming about a point keeps it under the pointer
  const z = m.zoomAbout({ ...c, zoom: 4 }, 1.5, 100, 200)
  const before = m.toWorld({ ...c, zoom: 4 }, 100, 200)
  const after = m.toWorld(z, 100, 200)
  assert.ok(Math.abs(before[0] - after[0]) < 1e-12 && Math.abs(before[1] - after[1]) < 1e-12)
  assert.is(m.zoomAbout(c, 40, 0, 0).zoom, m.MAX_ZOOM)
})

/** Points at these longitudes and latitudes (all offline). */
function pointsOf(at: Array<[number, number]>): Points {
  const xs = new Float64Array(at.length)
  const ys = new Float64Array(at.length)
  at.forEach(([lon, lat], i) => ([xs[i], ys[i]] = m.project(lon, lat)))
  return { xs, ys, online: new Uint8Array(at.length) }
}

unit(
  'clusters :: near devices one at low zoom, apart at high zoom; each device in one cluster',
  () => {
    const p = pointsOf([
      [4.8357, 45.764],
      [4.8371, 45.7652],
      [4.8379, 45.7631],
      [-74, 40.71],
    ])
    p.online[1] = 1
    const low = clusterAt(p, 4, 40)
    assert.equal(
      low.map((c) => [c.members.length, c.online]),
      [
        [3, 1],
        [1, 0],
      ],
    )
    assert.equal(
      clusterAt(p, 17, 40).map((c) => c.members.length),
      [1, 1, 1, 1],
    )
    // 10,000 devices over Europe: every one in exactly one cluster at every zoom, quickly
    const many = pointsOf(
      Array.from({ length: 10_000 }, (_, i) => [
        -10 + ((i * 104729) % 4000) / 100,
        35 + ((i * 7919) % 2500) / 100,
      ]),
    )
    for (const zoom of [0, 4, 8, 12, 18]) {
      const t0 = performance.now()
      const cs = clusterAt(many, zoom, 40)
      const ms = performance.now() - t0
      const seen = new Uint8Array(10_000)
      for (const c of cs) for (const i of c.members) seen[i]!++
      assert.ok(
        seen.every((n) => n === 1),
        `zoom ${zoom}: each once`,
      )
      assert.ok(ms < 200, `zoom ${zoom}: ${ms.toFixed(1)} ms`)
    }
  },
)

unit('MAP_TILE_URL :: OpenStreetMap by default; empty or none: no tiles; a bad one refused', () => {
  const base = { DATA_DIR: '/tmp/x' }
  const osm = loadConfig(base)
  assert.is(osm.MAP_TILE_URL, 'https://tile.openstreetmap.org/{z}/{x}/{y}.png')
  assert.is(
    tileAttribution(osm.MAP_TILE_URL, osm.MAP_TILE_ATTRIBUTION),
    '© OpenStreetMap contributors',
  )
  assert.is(loadConfig({ ...base, MAP_TILE_URL: '' }).MAP_TILE_URL, 'none')
  assert.is(loadConfig({ ...base, MAP_TILE_URL: 'none' }).MAP_TILE_URL, 'none')
  assert.is(tileSource('none'), undefined)
  const own = loadConfig({
    ...base,
    MAP_TILE_URL: 'https://{s}.tiles.example.com/{z}/{x}/{y}.png',
    MAP_TILE_ATTRIBUTION: '© Example',
  })
  assert.is(tileSource(own.MAP_TILE_URL), 'https://*.tiles.example.com')
  assert.is(tileAttribution(own.MAP_TILE_URL, own.MAP_TILE_ATTRIBUTION), '© Example')
  assert.is(tileAttribution(own.MAP_TILE_URL, undefined), '')
  for (const bad of [
    'ftp://tiles.example.com/{z}/{x}/{y}.png',
    'https://tiles.example.com/{z}/{x}.png',
    'https://tiles-{s}.example.com/{z}/{x}/{y}.png',
    'tiles/{z}/{x}/{y}.png',
  ])
    assert.throws(
      () => loadConfig({ ...base, MAP_TILE_URL: bad }),
      (e: unknown) => e instanceof ConfigError && /MAP_TILE_URL/.test(String(e)),
      bad,
    )
})

unit.run()
