/**
 * The download gate (src/http/download-gate.ts): many sends at once each deliver exactly their byte range, whole or
 * in part, in order, from pooled buffers; a sink that closes mid-send ends that send with an error and leaves the
 * others going; nothing waits once all are done, and the event loop keeps turning meanwhile.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { downloadGate } from '../../../src/http/download-gate.ts'

const test = suite('download gate')
const dir = mkdtempSync(join(tmpdir(), 'gate-'))
const bytes = randomBytes(1_000_003)
const path = join(dir, 'f.bin')
writeFileSync(path, bytes)
test.after(() => rmSync(dir, { recursive: true, force: true }))

/** A sink collecting what it is written (slowly when `delayMs`), or closing after `closeAfter` bytes. */
function sink(o: { delayMs?: number; closeAfter?: number } = {}) {
  const got: Buffer[] = []
  let n = 0
  const w = new Writable({
    write(chunk: Buffer, _enc, done) {
      got.push(Buffer.from(chunk)) // a copy: the gate reuses its buffer once this is done
      n += chunk.length
      if (o.closeAfter !== undefined && n >= o.closeAfter) {
        done()
        w.destroy()
        return
      }
      if (o.delayMs) setTimeout(done, o.delayMs)
      else done()
    },
  })
  return { w, got: () => Buffer.concat(got) }
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

test('40 sends at once :: each its exact range, in order; the loop turns meanwhile; nothing left waiting', async () => {
  const gate = downloadGate(64 * 1024)
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  const ranges = Array.from({ length: 40 }, (_, i) =>
    i % 2 ? { start: 0, end: bytes.length - 1 } : { start: i * 1000, end: i * 1000 + 300_000 },
  )
  const sinks = ranges.map((_, i) => sink({ delayMs: i % 5 === 0 ? 1 : 0 }))
  await Promise.all(ranges.map((r, i) => gate.send(path, r.start, r.end, sinks[i]!.w)))
  clearInterval(timer)
  ranges.forEach((r, i) =>
    assert.is(sha(sinks[i]!.got()), sha(bytes.subarray(r.start, r.end + 1)), `send ${i}`),
  )
  assert.ok(ticks > 5, `the event loop turned (${ticks} timer ticks) while 25 MB went out`)
  assert.is(gate.waiting, 0)
  assert.ok(gate.pooled > 0 && gate.pooled <= 40, `${gate.pooled} buffers kept`)
})

test('a sink closed mid-send :: that send rejects; the others finish whole', async () => {
  const gate = downloadGate()
  const closing = sink({ closeAfter: 200_000 })
  const whole = sink()
  const [a, b] = await Promise.allSettled([
    gate.send(path, 0, bytes.length - 1, closing.w),
    gate.send(path, 0, bytes.length - 1, whole.w),
  ])
  assert.is(a.status, 'rejected')
  assert.is(b.status, 'fulfilled')
  assert.is(sha(whole.got()), sha(bytes))
  assert.is(gate.waiting, 0)
})

test.run()
