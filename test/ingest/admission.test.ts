/** ingest/admission.ts: uplinks wait, in order and bounded, until the writer has room to decode them (alone, and in the pipeline of a running service). */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Admission } from '../../ingest/admission.ts'
import { Backpressure } from '../../ingest/types.ts'
import { startTestService, type TestService } from '../_support/service.ts'
import { buildWorld, stored, type World } from '../src/routes/_ingest.ts'

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

/** The real pipeline of a running service, with room to decode only a few uplinks. */
const pipeline = suite('admission in the pipeline: real service and stores')
let t: TestService
let w: World
pipeline.before(async () => {
  // two values a batch: an uplink (one value, one event) is decoded once fewer than 8 are queued
  t = await startTestService({ INGEST_BATCH_POINTS: '2', INGEST_LINGER_MS: '50' })
  w = await buildWorld(t.admin, t)
})
pipeline.after(() => t.close())

pipeline(
  'a burst :: the writer holds only what it has room for, the rest waits; flush() commits every uplink, each stored in the order it came',
  async () => {
    const p = t.svc.deps.pipeline
    const device = (await t.svc.deps.meta.ingest.deviceByDeviceID(w.device.deviceID))!
    const receivedAt = Date.now()
    const uplink = (i: number) => ({
      device,
      topic: 'telemetry',
      payload: Buffer.from(JSON.stringify({ temp: i })),
      receivedAt,
      ip: '127.0.0.1',
    })
    // the first uplink reads the product model: later ones are decoded as they are let in
    await p.submit(uplink(0))
    const outcomes = Array.from({ length: 60 }, (_, i) => p.submit(uplink(i + 1)))
    assert.ok(p.queued <= 8, `the writer holds ${p.queued} values and events`)
    await p.flush()
    assert.equal(
      (await Promise.all(outcomes)).map((o) => o.accepted),
      Array(60).fill(1),
    )
    const { temp } = await stored(t, w.tenantID, w.device.deviceID, ['temp'])
    // one receipt time, made strictly increasing per device in arrival order: the values come back 0..60
    assert.equal(
      temp!.map(([, v]) => v),
      [...Array(61).keys()],
    )
    assert.is(p.queued, 0)
  },
)

pipeline.run()
