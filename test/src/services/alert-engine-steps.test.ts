/** The named steps of src/services/alert-engine.ts that need no store: grouping a batch, what to close. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  idsByReason,
  raisedAndCleared,
  uplinkQueue,
  uplinksByDevice,
} from '../../../src/services/alert-engine.ts'
import type { StoredValue } from '../../../src/kernel/events.ts'
import type { AlertRef } from '../../../store/types.ts'
import { ingestDevice } from './_steps.ts'

const steps = suite('alert engine steps')

const value = (deviceID: string, time: number): StoredValue => ({
  productID: 'p',
  deviceID,
  dataPointID: 'temp',
  time,
  value: time,
})

steps(
  'uplinksByDevice :: each device its uplinks in order with only its values; unknown devices left out',
  async () => {
    const [a, b] = [ingestDevice(1, 'a'), ingestDevice(2, 'b')]
    const known = new Map([
      ['a', a],
      ['b', b],
    ])
    const asked: string[] = []
    const deviceOf = async (id: string) => (asked.push(id), known.get(id))
    const uplink = (...values: StoredValue[]) => ({ tenantID: 't1', deviceIntIDs: [], values })
    const got = await uplinksByDevice(
      [
        uplink(value('a', 1), value('b', 1), value('a', 2)),
        uplink(value('gone', 3)),
        uplink(value('b', 4)),
      ],
      deviceOf,
    )
    assert.equal(
      [...got].map(([d, list]) => [d.deviceID, list.map((u) => u.map((v) => v.time))]),
      [
        ['a', [[1, 2]]],
        ['b', [[1], [4]]],
      ],
    )
    assert.equal(asked, ['a', 'b', 'a', 'gone', 'b'])
    assert.is((await uplinksByDevice([uplink(value('gone', 1))], deviceOf)).size, 0)
  },
)

steps(
  'raisedAndCleared :: only the alerts opened for a rule and device cleared in the same turn',
  () => {
    const alert = (id: number, ruleID: number | null, deviceIntID: number): AlertRef => ({
      id,
      tenantID: 't1',
      ruleID,
      alertName: 'x',
      alertSeverity: 1,
      alertTimes: 1,
      alertDetail: null,
      deviceIntID,
      deviceID: null,
    })
    const raised = [alert(10, 1, 1), alert(11, 1, 2), alert(12, 2, 1), alert(13, null, 1)]
    assert.equal(
      raisedAndCleared(raised, [
        { ruleID: 1, deviceIntID: 2 },
        { ruleID: 2, deviceIntID: 1 },
        { ruleID: 3, deviceIntID: 1 },
      ]),
      [11, 12],
    )
    assert.equal(raisedAndCleared(raised, []), [])
  },
)

steps('idsByReason :: one group per reason, ids in the order given', () => {
  const close = new Map([
    [5, 'condition'],
    [3, 'rule'],
    [9, 'condition'],
  ] as const)
  assert.equal(
    [...idsByReason(close)],
    [
      ['condition', [5, 9]],
      ['rule', [3]],
    ],
  )
  assert.equal([...idsByReason(new Map())], [])
})

steps(
  'uplinkQueue :: batches drained one at a time in order; beyond max values dropped and logged; a failed batch logged',
  async () => {
    const logged: string[] = []
    const batches: number[][] = []
    let release = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const q = uplinkQueue(
      async (batch) => {
        batches.push(batch.map((u) => u.values[0]!.time))
        if (batches.length === 1) await gate
        if (batch.some((u) => u.values[0]!.time === 4)) throw new Error('boom')
      },
      (m) => logged.push(m),
      3,
    )
    const uplink = (time: number, n = 1) => ({
      tenantID: 't1',
      deviceIntIDs: [],
      values: Array.from({ length: n }, () => value('a', time)),
    })
    q.push(uplink(1)) // drained at once, held by the gate
    q.push(uplink(2))
    q.push(uplink(3, 2))
    q.push(uplink(9)) // 4 values queued: dropped
    release()
    await q.settle()
    q.push(uplink(4))
    await q.settle()
    assert.equal(batches, [[1], [2, 3], [4]])
    assert.equal(logged, [
      'queue full: 1 values not evaluated (1 since the start)',
      'evaluation failed',
    ])
    assert.equal(q.backlog(), { queued: 0, dropped: 1 })
  },
)

steps(
  'uplinkQueue :: a queue that keeps dropping says so at the first drop and then once every 10 s, with the count since; backlog counts every value',
  async () => {
    const logged: string[] = []
    let t = 0
    let release = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const q = uplinkQueue(
      () => gate,
      (m) => logged.push(m),
      2,
      () => t,
    )
    const uplink = (n: number) => ({
      tenantID: 't1',
      deviceIntIDs: [],
      values: Array.from({ length: n }, () => value('a', 1)),
    })
    q.push(uplink(1)) // being evaluated, held by the gate
    q.push(uplink(2)) // queued: the queue is full
    for (let i = 0; i < 5; i++) q.push(uplink(3)) // 15 values dropped at t=0
    t = 9_999
    q.push(uplink(1))
    assert.equal(logged, ['queue full: 3 values not evaluated (3 since the start)'])
    t = 10_000
    q.push(uplink(2))
    assert.equal(logged.slice(1), ['queue full: 15 values not evaluated (18 since the start)'])
    assert.equal(q.backlog(), { queued: 2, dropped: 18 })
    release()
    await q.settle()
    assert.equal(q.backlog(), { queued: 0, dropped: 18 })
  },
)

steps.run()
