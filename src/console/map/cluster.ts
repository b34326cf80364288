/**
 * Clusters of map points at one zoom: greedily, each point not yet taken gathers every untaken point within
 * `radius` pixels of it (looked up in a grid of cells of that size, so a zoom's clusters cost about one pass over
 * the points); the cluster sits at its members' mean. Points are given in world coordinates (mercator.ts).
 */
import { TILE } from './mercator.ts'

export interface Cluster {
  /** World position: the members' mean. */
  x: number
  y: number
  /** Indexes of its points. */
  members: number[]
  /** How many of them are online. */
  online: number
}

/** The points to cluster: world x and y, and whether each is online. */
export interface Points {
  xs: Float64Array
  ys: Float64Array
  online: Uint8Array
}

/** Cells a grid column may hold (a world is at most 2^18 · 256 / radius cells across): keys are column · CELLS + row. */
const CELLS = 16_777_216

/** The points' clusters at `zoom` (an integer level), `radius` CSS pixels wide. */
export function clusterAt({ xs, ys, online }: Points, zoom: number, radius: number): Cluster[] {
  const r = radius / (TILE * 2 ** zoom)
  const r2 = r * r
  const n = xs.length
  const col = new Int32Array(n)
  const row = new Int32Array(n)
  const grid = new Map<number, number[]>()
  for (let i = 0; i < n; i++) {
    col[i] = Math.floor(xs[i]! / r)
    row[i] = Math.floor(ys[i]! / r)
    const key = col[i]! * CELLS + row[i]!
    const cell = grid.get(key)
    if (cell) cell.push(i)
    else grid.set(key, [i])
  }
  const taken = new Uint8Array(n)
  const out: Cluster[] = []
  for (let i = 0; i < n; i++) {
    if (taken[i]) continue
    const c: Cluster = { x: 0, y: 0, members: [], online: 0 }
    for (let gx = col[i]! - 1; gx <= col[i]! + 1; gx++)
      for (let gy = row[i]! - 1; gy <= row[i]! + 1; gy++) {
        const cell = grid.get(gx * CELLS + gy)
        if (cell) gather(c, cell, i, { xs, ys, online }, taken, r2)
      }
    c.x /= c.members.length
    c.y /= c.members.length
    out.push(c)
  }
  return out
}

/** Adds to `c` the untaken points of `cell` within √r2 of point `i` (its x and y summed, its mean later). */
function gather(
  c: Cluster,
  cell: number[],
  i: number,
  { xs, ys, online }: Points,
  taken: Uint8Array,
  r2: number,
) {
  for (const j of cell) {
    if (taken[j]) continue
    const dx = xs[j]! - xs[i]!
    const dy = ys[j]! - ys[i]!
    if (dx * dx + dy * dy > r2) continue
    taken[j] = 1
    c.members.push(j)
    c.x += xs[j]!
    c.y += ys[j]!
    c.online += online[j]!
  }
}

/** The world box of some points: [west, north, east, south]. */
export function boxOf(
  { xs, ys }: Points,
  members: Iterable<number>,
): [number, number, number, number] {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const i of members) {
    x0 = Math.min(x0, xs[i]!)
    x1 = Math.max(x1, xs[i]!)
    y0 = Math.min(y0, ys[i]!)
    y1 = Math.max(y1, ys[i]!)
  }
  return [x0, y0, x1, y1]
}
