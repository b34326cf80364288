/**
 * The codec of the event log's folded blocks (docs/storage.md: the event log). A block holds up to
 * BLOCK_EVENTS uplink messages of one device (one tenant, device, name and product) in two compressed parts:
 *
 * - `idx` (deflated varints): per message in id order, its id, msgTime and createAt (as deltas) and the number of
 *   its key: the (topic, status, IP, reason) it shares with others, listed once in the block's `keys` column with
 *   a count each, so filters on topic and status and their counts never decompress a block.
 * - `data` (brotli): the payloads, with the numbers they hold cut out into columns (the n-th number of every
 *   message after one another) and what is left of each payload (its template) kept once in a dictionary; numbers
 *   and templates are the payload's own text, so every payload comes back byte for byte.
 *
 * Compression runs in libuv's thread pool (node:zlib's callback API), never on the event loop.
 */
import { promisify } from 'node:util'
import { brotliCompress, brotliDecompress, constants, deflateRaw, inflateRaw } from 'node:zlib'

/** Messages a block holds at most. */
export const BLOCK_EVENTS = 1024

const brotli = promisify(brotliCompress)
const unbrotli = promisify(brotliDecompress)
const deflate = promisify(deflateRaw)
const inflate = promisify(inflateRaw)

/** One message as a block keeps it (the block's own columns hold its tenant, device, name and product). */
export interface BlockEvent {
  id: number
  msgTime: number
  createAt: number
  topic: string | null
  status: number
  IP: string | null
  reason: string | null
  payload: string | null
}

/** A key of the block: topic, status, IP, reason, and how many of its messages have it. */
export type BlockKey = [
  topic: string | null,
  status: number,
  ip: string | null,
  reason: string | null,
  n: number,
]

/** One message of a block's index: what lists sort, page and filter by, without its payload. */
export interface IndexEntry {
  id: number
  msgTime: number
  createAt: number
  key: number
}

/** A block's extent: its message count, first and last event ids, earliest and latest msgTime and createAt. */
export interface BlockSpan {
  n: number
  id0: number
  id1: number
  t0: number
  t1: number
  c0: number
  c1: number
}

export interface EncodedBlock extends BlockSpan {
  keys: BlockKey[]
  idx: Buffer
  data: Buffer
}

/** A number as JSON writes it, and integers of any length (kept as text, so nothing is rounded). */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g
/** Stands for a number cut out of a template (a payload holding it is kept whole). */
const HOLE = '\u0001'

/** Encodes `events` (one device's, any order; at most BLOCK_EVENTS) into a block. */
export async function encodeBlock(events: readonly BlockEvent[]): Promise<EncodedBlock> {
  if (events.length === 0 || events.length > BLOCK_EVENTS)
    throw new RangeError(`a block holds 1 to ${BLOCK_EVENTS} events, not ${events.length}`)
  const sorted = [...events].sort((a, b) => a.id - b.id)
  const { keys, idx } = blockIndex(sorted)
  const text = payloadText(sorted)
  const [idxBytes, dataBytes] = await Promise.all([
    deflate(idx.bytes(), { level: 9 }),
    brotli(Buffer.from(text), {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
      },
    }),
  ])
  const times = sorted.map((e) => e.msgTime)
  const creates = sorted.map((e) => e.createAt)
  return {
    n: sorted.length,
    id0: sorted[0]!.id,
    id1: sorted.at(-1)!.id,
    t0: Math.min(...times),
    t1: Math.max(...times),
    c0: Math.min(...creates),
    c1: Math.max(...creates),
    keys,
    idx: idxBytes,
    data: dataBytes,
  }
}

/** The block's keys, and its index before deflating (a message's id, times and key number, in id order). */
function blockIndex(sorted: readonly BlockEvent[]): { keys: BlockKey[]; idx: Varints } {
  const keys: BlockKey[] = []
  const keyOf = new Map<string, number>()
  const idx = new Varints()
  let prevId = 0
  let prevTime = 0
  for (const e of sorted) {
    const k = JSON.stringify([e.topic, e.status, e.IP, e.reason])
    let key = keyOf.get(k)
    if (key === undefined) {
      key = keys.push([e.topic, e.status, e.IP, e.reason, 0]) - 1
      keyOf.set(k, key)
    }
    keys[key]![4]++
    idx.signed(e.id - prevId)
    idx.signed(e.msgTime - prevTime)
    idx.signed(e.createAt - e.msgTime)
    idx.unsigned(key)
    prevId = e.id
    prevTime = e.msgTime
  }
  return { keys, idx }
}

/** The block's payloads (in id order) as the text of its `data`, before compression. */
function payloadText(sorted: readonly BlockEvent[]): string {
  // payloads: a dictionary of templates (null: no payload; 'R…': kept whole; 'T…': numbers cut out)
  const dict: (string | null)[] = []
  const dictOf = new Map<string | null, number>()
  const which: number[] = []
  const numbers: string[][] = []
  for (const e of sorted) {
    let entry: string | null
    let cut: string[] = []
    if (e.payload === null) entry = null
    else if (e.payload.includes(HOLE)) entry = `R${e.payload}`
    else {
      cut = e.payload.match(NUMBER) ?? []
      entry = `T${e.payload.replace(NUMBER, HOLE)}`
    }
    let i = dictOf.get(entry)
    if (i === undefined) {
      i = dict.push(entry) - 1
      dictOf.set(entry, i)
    }
    which.push(i)
    numbers.push(cut)
  }
  const width = Math.max(0, ...numbers.map((n) => n.length))
  const columns: string[] = []
  for (let c = 0; c < width; c++)
    columns.push(
      numbers
        .filter((n) => n.length > c)
        .map((n) => n[c])
        .join(','),
    )
  return JSON.stringify({ d: dict, w: which, c: columns })
}

/** A block's index: its messages in id order. */
export async function decodeIndex(idx: Uint8Array, n: number): Promise<IndexEntry[]> {
  const r = new VarintReader(await inflate(idx))
  const out: IndexEntry[] = []
  let id = 0
  let msgTime = 0
  for (let i = 0; i < n; i++) {
    id += r.signed()
    msgTime += r.signed()
    const createAt = msgTime + r.signed()
    out.push({ id, msgTime, createAt, key: r.unsigned() })
  }
  return out
}

/**
 * A block's payloads, in id order (as its index); with `wanted` (positions in that order), only those are built
 * (the others are left undefined), so a page that takes a few messages of a block does not rebuild all of them.
 */
export async function decodePayloads(
  data: Uint8Array,
  wanted?: ReadonlySet<number>,
): Promise<(string | null | undefined)[]> {
  const { d, w, c } = JSON.parse((await unbrotli(data)).toString()) as {
    d: (string | null)[]
    w: number[]
    c: string[]
  }
  const columns = c.map((col) => col.split(','))
  // each template's pieces between its holes (a template with k holes has k + 1 pieces)
  const pieces = d.map((entry) =>
    entry !== null && entry[0] === 'T' ? entry.slice(1).split(HOLE) : undefined,
  )
  // how many numbers of each column the payloads before this one took
  const taken = columns.map(() => 0)
  return w.map((i, at) => {
    const entry = d[i]!
    const parts = pieces[i]
    const holes = parts ? parts.length - 1 : 0
    let out: string | null | undefined
    if (wanted && !wanted.has(at)) out = undefined
    else if (entry === null) out = null
    else if (!parts) out = entry.slice(1)
    else {
      out = parts[0]!
      for (let k = 0; k < holes; k++) out += columns[k]![taken[k]!]! + parts[k + 1]!
    }
    for (let k = 0; k < holes; k++) taken[k]!++
    return out
  })
}

/** Unsigned LEB128 varints; signed values zigzag-encoded (JS numbers up to 2^53). */
class Varints {
  private out: number[] = []
  unsigned(v: number) {
    while (v >= 0x80) {
      this.out.push((v % 0x80) | 0x80)
      v = Math.floor(v / 0x80)
    }
    this.out.push(v)
  }
  signed(v: number) {
    this.unsigned(v < 0 ? -2 * v - 1 : 2 * v)
  }
  bytes() {
    return Buffer.from(this.out)
  }
}

class VarintReader {
  private at = 0
  constructor(private readonly buf: Uint8Array) {}
  unsigned(): number {
    let v = 0
    let scale = 1
    for (;;) {
      const b = this.buf[this.at++]
      if (b === undefined) throw new RangeError('event block index ends early')
      v += (b & 0x7f) * scale
      if (b < 0x80) return v
      scale *= 0x80
    }
  }
  signed(): number {
    const z = this.unsigned()
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2
  }
}
