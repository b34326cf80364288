/**
 * `node scripts/world-outline.ts`: writes src/console/map/world-110m.ts, the console map's built-in world outline
 * (drawn where no tile loads), from the devDependency world-atlas: Natural Earth's land and the borders between its
 * countries at 1:110m (public domain), as TopoJSON. Kept: each land ring and each border line, simplified to within
 * 0.1 degree (Douglas-Peucker; a 1:110m line is coarser than that), its points rounded to 1/20 degree with repeats
 * dropped and latitudes within Web Mercator's ±85.05°, written as deltas in a text of 64 URL-safe characters (about
 * 13 KB gzipped for both; the raw TopoJSON is 38 KB). src/console/map/outline.ts reads that text back. test/console/map-unit.test.ts checks that
 * the committed file is what this writes. Runs on Node's own type stripping (erasable TypeScript only).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Points a degree: coordinates are written as whole 1/STEPS degrees. */
export const STEPS = 20
const MAX_LAT = 85.05
/** Points closer than this (degrees) to the line through their neighbours are dropped (Douglas-Peucker). */
export const TOLERANCE = 0.1
/** Five bits a character: the last of a number from the first 32, the others from the next 32. */
export const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** Between two rings or lines. */
export const SEPARATOR = '.'

type Arc = Array<[number, number]>
interface Topology {
  transform: { scale: [number, number]; translate: [number, number] }
  arcs: Array<Array<[number, number]>>
  objects: Record<string, { geometries: Array<{ type: string; arcs: unknown }> }>
}

const root = join(import.meta.dirname, '..')
const read = (name: string) =>
  JSON.parse(readFileSync(join(root, 'node_modules/world-atlas', name), 'utf8')) as Topology

/** The topology's arcs in degrees (TopoJSON stores them quantized and delta-encoded). */
function arcsOf(topo: Topology): Arc[] {
  const [sx, sy] = topo.transform.scale
  const [tx, ty] = topo.transform.translate
  return topo.arcs.map((arc) => {
    let x = 0
    let y = 0
    return arc.map(([dx, dy]): [number, number] => {
      x += dx
      y += dy
      return [x * sx + tx, y * sy + ty]
    })
  })
}

/** The rings (arc indexes, ~i for arc i reversed) of a geometry's polygons. */
function ringsOf(g: { type: string; arcs: unknown }): number[][] {
  if (g.type === 'Polygon') return g.arcs as number[][]
  if (g.type === 'MultiPolygon') return (g.arcs as number[][][]).flat()
  return []
}

/**
 * A ring made planar: TopoJSON rings are spherical, so one may cross the antimeridian (Fiji, Chukotka), its
 * longitude then jumping by 360°. Unwrapped, its longitudes run on past ±180° (the map draws such a ring a second
 * time a world away); a ring that goes round a pole (Antarctica) is closed along that pole.
 */
function planar(ring: Arc): Arc {
  const out: Arc = []
  let shift = 0
  for (const [lon, lat] of ring) {
    const prev = out.at(-1)
    if (prev && lon + shift - prev[0] > 180) shift -= 360
    else if (prev && lon + shift - prev[0] < -180) shift += 360
    out.push([lon + shift, lat])
  }
  const [first, last] = [out[0]!, out.at(-1)!]
  if (Math.abs(last[0] - first[0]) > 180) {
    const pole = first[1] < 0 ? -90 : 90
    out.push([last[0], pole], [first[0], pole], first)
  }
  return out
}

/** Land: each ring of land-110m's polygons, its arcs joined, made planar. */
function landRings(): Arc[] {
  const topo = read('land-110m.json')
  const arcs = arcsOf(topo)
  return topo.objects.land!.geometries.flatMap(ringsOf).map((ring) => {
    const out: Arc = []
    for (const i of ring) {
      const arc = i >= 0 ? arcs[i]! : [...arcs[~i]!].reverse()
      out.push(...(out.length ? arc.slice(1) : arc))
    }
    return planar(out)
  })
}

/** Borders: the arcs of countries-110m that two countries share. */
function borderLines(): Arc[] {
  const topo = read('countries-110m.json')
  const arcs = arcsOf(topo)
  const users = new Map<number, Set<number>>()
  topo.objects.countries!.geometries.forEach((g, country) => {
    for (const i of ringsOf(g).flat()) {
      const arc = i >= 0 ? i : ~i
      users.set(arc, (users.get(arc) ?? new Set()).add(country))
    }
  })
  return [...users].filter(([, by]) => by.size > 1).map(([i]) => arcs[i]!)
}

/** The line without the points within TOLERANCE of the simplified line (Douglas-Peucker; its ends kept). */
export function simplify(line: Arc, tolerance = TOLERANCE): Arc {
  if (line.length < 3 || tolerance <= 0) return line
  const keep = new Uint8Array(line.length)
  keep[0] = keep[line.length - 1] = 1
  const spans: Array<[number, number]> = [[0, line.length - 1]]
  while (spans.length) {
    const [a, b] = spans.pop()!
    const [ax, ay] = line[a]!
    const [bx, by] = line[b]!
    const len = Math.hypot(bx - ax, by - ay)
    let far = -1
    let farD = tolerance
    for (let i = a + 1; i < b; i++) {
      const [px, py] = line[i]!
      const d = len
        ? Math.abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / len
        : Math.hypot(px - ax, py - ay)
      if (d > farD) [far, farD] = [i, d]
    }
    if (far < 0) continue
    keep[far] = 1
    spans.push([a, far], [far, b])
  }
  return line.filter((_, i) => keep[i])
}

/** A signed integer in DIGITS (zigzag, then five bits a character, lowest first). */
function encodeInt(v: number): string {
  let z = v < 0 ? -2 * v - 1 : 2 * v
  let s = ''
  while (z >= 32) {
    s += DIGITS[32 + (z & 31)]
    z = Math.floor(z / 32)
  }
  return s + DIGITS[z]
}

/** Lines rounded to 1/STEPS degree, repeats dropped, each as its first point then deltas; too short ones left out. */
export function encodeLines(lines: Arc[], minPoints: number): string {
  const out: string[] = []
  for (const line of lines) {
    let text = ''
    let n = 0
    let [px, py] = [0, 0]
    for (const [lon, lat] of line) {
      const x = Math.round(lon * STEPS)
      const y = Math.round(Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * STEPS)
      if (n > 0 && x === px && y === py) continue
      text += encodeInt(x - px) + encodeInt(y - py)
      ;[px, py] = [x, y]
      n++
    }
    if (n >= minPoints) out.push(text)
  }
  return out.join(SEPARATOR)
}

/** A long text as a TypeScript array of lines joined (so that the file keeps to 100 columns). */
const asLines = (text: string) =>
  `[\n${(text.match(/.{1,94}/g) ?? []).map((l) => `  '${l}',`).join('\n')}\n].join('')`

/** The text of src/console/map/world-110m.ts. */
export function worldOutlineModule(): string {
  const { version } = JSON.parse(
    readFileSync(join(root, 'node_modules/world-atlas/package.json'), 'utf8'),
  ) as { version: string }
  return `/**
 * Generated by scripts/world-outline.ts (do not edit) from world-atlas ${version}: Natural Earth's 1:110m land and
 * borders between countries (public domain; naturalearthdata.com). Each ring or line is its first point and then
 * deltas, in 1/${STEPS} degree, as zigzag integers of five bits a character, separated by '${SEPARATOR}'. Read by
 * src/console/map/outline.ts.
 */

/** The land's rings (longitude, latitude; a ring across the antimeridian runs on past ±180). */
export const LAND = ${asLines(
    encodeLines(
      landRings().map((r) => simplify(r)),
      4,
    ),
  )}

/** The borders between countries (lines, not rings). */
export const BORDERS = ${asLines(
    encodeLines(
      borderLines().map((l) => simplify(l)),
      2,
    ),
  )}
`
}

export const OUTLINE_FILE = join(root, 'src/console/map/world-110m.ts')

if (import.meta.main) {
  writeFileSync(OUTLINE_FILE, worldOutlineModule())
  console.log(`wrote ${OUTLINE_FILE}`)
}
