/** ingest/admission.ts: uplinks wait, in order and bounded, until the writer has room to decode them. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Admission } from '../../ingest/admission.ts'
import { Backpressure } from '../../ingest/types.ts'

const admission = suite('admission before decoding')

/** An admission over a writer holding `held` items, with room below `room`; `started` lists what got in. */
function world(room: number, limit: number) {
  const w = { held: 0, started: [] as string[] }
  const gate = new Admission<string, string>(
    (arg) => {
      w.held++
      w.started.push(arg)
      return Promise.resolve(`done ${arg}`)
    },
    () => w.held < room,
    limit,
  )
  return { w, gate }
}

admission('room :: an item starts at once, answered with what its start answers', async () => {
  const { w, gate } = world(2, 10)
  assert.is(await gate.run('a'), 'done a')
  assert.equal(w.started, ['a'])
  assert.is(gate.waiting, 0)
})

admission(
  'no room :: items wait in order, also those arriving after room came back, and start as room frees',
  async () => {
    const { w, gate } = world(1, 10)
    const answers: string[] = []
    const all = ['a', 'b', 'c', 'd'].map((x) => gate.run(x).then((r) => answers.push(r)))
    assert.equal(w.started, ['a'])
    assert.is(gate.waiting, 3)
    w.held = 0 // the writer wrote 'a': room for one, but 'e' must not pass those waiting
    const e = gate.run('e').then((r) => answers.push(r))
    assert.equal(w.started, ['a'])
    gate.release()
    assert.equal(w.started, ['a', 'b'])
    w.held = -2 // room for three
    gate.release()
    assert.equal(w.started, ['a', 'b', 'c', 'd', 'e'])
    await Promise.all([...all, e])
    assert.equal(answers, ['done a', 'done b', 'done c', 'done d', 'done e'])
    assert.is(gate.waiting, 0)
  },
)

admission(
  'bounded :: beyond `limit` waiting, run rejects with Backpressure; saturated from 80% until half',
  async () => {
    const { w, gate } = world(0, 10)
    const waiting = Array.from({ length: 10 }, (_, i) => gate.run(String(i)))
    assert.is(gate.waiting, 10)
    assert.ok(gate.saturated)
    let drained = false
    void gate.drained().then(() => (drained = true))
    try {
      await gate.run('one too many')
      assert.unreachable('accepted beyond the limit')
    } catch (e) {
      assert.instance(e, Backpressure)
    }
    w.held = -4 // room for four: six still wait, above half the limit
    gate.release()
    await Promise.resolve()
    assert.equal([gate.waiting, gate.saturated, drained], [6, false, false])
    w.held = -1 // one more: five, half the limit
    gate.release()
    await new Promise((r) => setImmediate(r))
    assert.equal([gate.waiting, drained], [5, true])
    w.held = -100
    gate.release()
    assert.equal(
      await Promise.all(waiting),
      [...Array(10).keys()].map((i) => `done ${i}`),
    )
    assert.equal(w.started.length, 10)
  },
)

admission(
  'a rejected start :: its caller gets the rejection, the next ones still start',
  async () => {
    let held = 1
    const gate = new Admission<string, string>(
      (arg) => {
        held++
        return arg === 'bad' ? Promise.reject(new Error('no model')) : Promise.resolve(arg)
      },
      () => held < 1,
      10,
    )
    const bad = gate.run('bad')
    const good = gate.run('good')
    held = -5
    gate.release()
    try {
      await bad
      assert.unreachable()
    } catch (e) {
      assert.is((e as Error).message, 'no model')
    }
    assert.is(await good, 'good')
  },
)

admission.run()
