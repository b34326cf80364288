/**
 * Integer packing of the embedded telemetry store's chunks (codec.ts): a first value, then blocks of
 * BLOCK, each block as a minimum (a varint) and a width byte, then its integers minus that minimum packed at that
 * width. A block holds either the differences between neighbours (width byte = the width) or, when that is
 * narrower, the values themselves (frame of reference: width byte = FOR_FLAG + the width). Slowly changing series
 * (a 1 Hz reading with two decimals, times a second apart with some jitter) cost a few bits a value as
 * differences; values that jump anywhere in a range (uniform noise, counters that reset) cost one bit less as
 * themselves than as differences, whose span is twice the range. Gorilla's XOR of float bits needs ~6.6 bytes on
 * such data because the low mantissa bits of decimal fractions look random. Blocks written before the frame of
 * reference existed never have the flag set (widths are at most MAX_WIDTH), so they read as before.
 *
 * All arithmetic is on doubles: integers are exact up to 2^53, widths are at most MAX_WIDTH bits, and the bit
 * accumulator never holds more than MAX_WIDTH + 8 bits.
 */

const BLOCK = 128
/** Widest packed difference (bits); a block needing more is not packed (the caller falls back to Float64). */
export const MAX_WIDTH = 40
/** Width-byte flag: the block holds values minus its minimum, not differences. */
const FOR_FLAG = 128
const POW2 = Array.from({ length: 64 }, (_, i) => 2 ** i)

/** A growable byte buffer. */
class Bytes {
  buf = new Uint8Array(256)
  len = 0
  push(b: number) {
    if (this.len === this.buf.length) {
      const next = new Uint8Array(this.buf.length * 2)
      next.set(this.buf)
      this.buf = next
    }
    this.buf[this.len++] = b
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.len)
  }
}

const zigzag = (v: number) => (v >= 0 ? 2 * v : -2 * v - 1)
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2)

function putVarint(out: Bytes, v: number) {
  let z = zigzag(v)
  while (z >= 128) {
    out.push((z % 128) + 128)
    z = Math.floor(z / 128)
  }
  out.push(z)
}

/** Bits needed for integers 0..range (Infinity when range is not a safe integer: too wide to pack). */
function widthOf(range: number): number {
  if (!Number.isSafeInteger(range)) return Infinity
  return range === 0 ? 0 : Math.floor(Math.log2(range)) + 1
}

/** Reads the packed bytes of `blob` from `pos`. */
class Reader {
  pos: number
  constructor(
    readonly bytes: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos
  }
  varint(): number {
    let z = 0
    let scale = 1
    for (;;) {
      const b = this.bytes[this.pos++]!
      z += (b % 128) * scale
      if (b < 128) return unzigzag(z)
      scale *= 128
    }
  }
}

/**
 * Packs the integers `v` (exact, |v| < 2^52), or undefined when a block's differences span more than MAX_WIDTH
 * bits. `head` bytes are written first (the caller's header).
 */
export function packInts(
  v: ArrayLike<number>,
  head: readonly number[] = [],
): Uint8Array | undefined {
  const n = v.length
  const out = new Bytes()
  for (const b of head) out.push(b)
  if (n === 0) return out.done()
  putVarint(out, v[0]!)
  for (let start = 1; start < n; start += BLOCK) {
    const end = Math.min(n, start + BLOCK)
    let min = Infinity
    let max = -Infinity
    let vmin = Infinity
    let vmax = -Infinity
    for (let i = start; i < end; i++) {
      const x = v[i]!
      const d = x - v[i - 1]!
      if (d < min) min = d
      if (d > max) max = d
      if (x < vmin) vmin = x
      if (x > vmax) vmax = x
    }
    const width = widthOf(max - min)
    const forWidth = widthOf(vmax - vmin)
    // frame of reference when strictly narrower: differences stay the choice for walks and regular times
    const asValues = forWidth < width
    const w = asValues ? forWidth : width
    const base = asValues ? vmin : min
    if (w > MAX_WIDTH) return undefined
    putVarint(out, base)
    out.push(asValues ? FOR_FLAG + w : w)
    if (w === 0) continue
    let acc = 0
    let bits = 0
    for (let i = start; i < end; i++) {
      acc += (asValues ? v[i]! - base : v[i]! - v[i - 1]! - base) * POW2[bits]!
      bits += w
      while (bits >= 8) {
        out.push(acc % 256)
        acc = Math.floor(acc / 256)
        bits -= 8
      }
    }
    if (bits > 0) out.push(acc)
  }
  return out.done()
}

/** The `n` integers packInts wrote into `bytes` from `offset` (after the caller's header). */
export function unpackInts(bytes: Uint8Array, n: number, offset = 0): number[] {
  const out: number[] = new Array<number>(n)
  if (n === 0) return out
  const r = new Reader(bytes, offset)
  let prev = (out[0] = r.varint())
  for (let start = 1; start < n; start += BLOCK) {
    const end = Math.min(n, start + BLOCK)
    const min = r.varint()
    const head = bytes[r.pos++]!
    const asValues = head >= FOR_FLAG
    const width = asValues ? head - FOR_FLAG : head
    if (width === 0) {
      if (asValues) for (let i = start; i < end; i++) out[i] = prev = min
      else for (let i = start; i < end; i++) out[i] = prev += min
      continue
    }
    const mod = POW2[width]!
    let acc = 0
    let bits = 0
    let pos = r.pos
    for (let i = start; i < end; i++) {
      while (bits < width) {
        acc += bytes[pos++]! * POW2[bits]!
        bits += 8
      }
      const d = acc % mod
      acc = (acc - d) / mod
      bits -= width
      out[i] = prev = asValues ? d + min : prev + d + min
    }
    r.pos = pos
  }
  return out
}
