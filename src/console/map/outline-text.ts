/**
 * The text scripts/world-outline.ts writes the world outline in (src/console/map/world-110m.ts), read back: each line
 * its first point then deltas, in 1/20 degree, as zigzag integers of five bits a character, lines separated by '.'.
 */

const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const VALUE = new Map([...DIGITS].map((c, i) => [c, i]))
/** Points a degree in the encoded text (scripts/world-outline.ts). */
const STEPS = 20

/** The encoded lines as longitude, latitude pairs (degrees): [lon0, lat0, lon1, lat1, ...] a line. */
export function decodeLines(text: string): number[][] {
  return text.split('.').map((line) => {
    const out: number[] = []
    let n = 0
    let shift = 0
    let at = 0
    const prev = [0, 0]
    for (const ch of line) {
      const d = VALUE.get(ch)!
      n += (d & 31) * 2 ** shift
      shift += 5
      if (d >= 32) continue
      const v = n % 2 ? -(n + 1) / 2 : n / 2
      prev[at % 2]! += v
      out.push(prev[at % 2]! / STEPS)
      at++
      n = 0
      shift = 0
    }
    return out
  })
}
