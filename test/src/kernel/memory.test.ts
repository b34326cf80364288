import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { collectAtRest } from '../../../src/kernel/memory.ts'

const memory = suite('memory at rest')
const root = join(import.meta.dirname, '../../..')

/** Runs collectAtRest on the given windows' utilizations, one a tick; answers after which windows it collected. */
async function collections(windows: number[]): Promise<number[]> {
  let seen = 0
  const at: number[] = []
  // collectAtRest's timer lets the process end: this one holds it until the windows are seen
  const hold = setInterval(() => {}, 1000)
  const done = new Promise<void>((resolve) => {
    const stop = collectAtRest({
      checkMs: 2,
      utilization: () => {
        const u = windows[seen++]
        if (seen >= windows.length) {
          stop()
          setImmediate(resolve)
        }
        return u ?? 0
      },
      collect: () => at.push(seen),
    })
  })
  await done
  clearInterval(hold)
  return at
}

memory(
  'collectAtRest :: the start counts as work: two quiet windows, then one collection only',
  async () => {
    assert.equal(await collections([0.01, 0.02, 0.01, 0.0, 0.01, 0.0]), [2])
  },
)

memory(
  'collectAtRest :: once more after each busy window; a middling window is neither',
  async () => {
    // busy, quiet, quiet -> 3; the collection's own window (0.9 at 4) is not work, so 5 and 6 quiet do nothing;
    // busy at 7, quiet at 8, a middling window (0.07) at 9 starts the quiet count again: 10, 11 -> 11
    const u = [0.5, 0.01, 0.01, 0.9, 0.01, 0.01, 0.3, 0.01, 0.07, 0.01, 0.01, 0.07]
    assert.equal(await collections(u), [3, 11])
    // a steady middling load never collects
    assert.equal(await collections([0.2, 0.06, 0.06, 0.08, 0.06, 0.06]), [])
  },
)

/**
 * A real V8: a child grows its young generation with a burst of work, then rests. Answers its RSS, MB, before and
 * after a second of rest under collectAtRest (100 ms windows), and how often it collected.
 */
function burstThenRest(flags: string[]) {
  const memoryTs = JSON.stringify(join(root, 'src/kernel/memory.ts'))
  const script = `
    import { collectAtRest, reduceMemory } from ${memoryTs}
    const rss = () => Math.round(process.memoryUsage().rss / 1048576)
    let keep = []
    for (let i = 0; i < 3_000_000; i++) {
      keep.push({ i, s: 'x' + i })
      if (keep.length > 200_000) keep = []
    }
    keep = []
    const before = rss()
    let collected = 0
    collectAtRest({ checkMs: 100, collect: () => { collected++; reduceMemory() } })
    setTimeout(() => { console.log(JSON.stringify({ before, after: rss(), collected })); process.exit(0) }, 1200)
  `
  const out = execFileSync(
    process.execPath,
    ['--max-semi-space-size=64', ...flags, '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  )
  return JSON.parse(out) as { before: number; after: number; collected: number }
}

memory(
  'reduceMemory :: a real V8 gives the burst memory back at rest with --expose-gc; without, nothing',
  () => {
    const exposed = burstThenRest(['--expose-gc'])
    assert.is(exposed.collected, 1)
    assert.ok(exposed.before - exposed.after > 50, JSON.stringify(exposed))
    // without the flag V8 keeps the pages: the memory the service held at rest before collectAtRest
    const plain = burstThenRest([])
    assert.is(plain.collected, 1)
    assert.ok(plain.before - plain.after < 20, JSON.stringify(plain))
    assert.ok(
      plain.after - exposed.after > 50,
      `${JSON.stringify(plain)} ${JSON.stringify(exposed)}`,
    )
  },
)

memory.run()
