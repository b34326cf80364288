/** The pure steps of src/services/group-command-steps.ts: a group command's topic, rows, pacing and report. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  groupCommandRow,
  groupOutcome,
  groupReport,
  groupRequestTopic,
  memberRows,
  type GroupRowFields,
} from '../../../src/services/group-command-steps.ts'
import { ann, T, thrown } from './_steps.ts'

const steps = suite('group command steps')

const g = { id: 9, groupID: 'g9', groupName: 'pumps' }
/** The fields a group's row and its members' rows share. */
const shared = {
  tenantID: 't1',
  groupIntID: 9,
  groupID: 'g9',
  groupName: 'pumps',
  topic: 'cmd',
  payload: 'on',
  qos: 1,
  timeoutMs: 30_000,
  expiresAt: T + 60_000,
  scheduleID: 4,
  publishUser: 'ann',
  userIntID: 2,
} as const
const group = { id: 40, ...shared } satisfies GroupRowFields

steps('groupRequestTopic :: relative, inbox by default; a wildcard or an empty one refused', () => {
  assert.is(groupRequestTopic({}), 'inbox')
  assert.is(groupRequestTopic({ topic: '//cmd/a' }), 'cmd/a')
  const refused = { name: 'Invalid', errors: { topic: 'a relative topic without wildcards' } }
  assert.equal(
    thrown(() => groupRequestTopic({ topic: 'cmd/#' })),
    refused,
  )
  assert.equal(
    thrown(() => groupRequestTopic({ topic: 'cmd/+/a' })),
    refused,
  )
  assert.equal(
    thrown(() => groupRequestTopic({ topic: '/' })),
    refused,
  )
})

steps(
  'groupCommandRow :: needAck 1 queued on the topic; needAck 0 sent QoS 0 to the group topic',
  () => {
    const p = { t: T, taskID: 'k1', topic: 'cmd', defaultTimeout: 30 }
    assert.equal(groupCommandRow(ann, g, { payload: 'on', ttl: 60 }, { ...p, scheduleID: 4 }), {
      ...shared,
      taskID: 'k1',
      needAck: 1,
      status: 'queued',
    })
    const noAck = groupCommandRow(ann, g, { payload: 'on', needAck: 0, qos: 1, timeout: 5 }, p)
    assert.equal(
      [noAck.topic, noAck.qos, noAck.status, noAck.timeoutMs, noAck.expiresAt, noAck.scheduleID],
      ['group/g9', 0, 'sent', 5000, null, null],
    )
  },
)

const members = [1, 2, 3, 4].map((id) => ({ id, deviceID: `d${id}`, deviceName: `n${id}` }))

steps(
  'memberRows :: one queued command per member with the group fields, each its own task',
  () => {
    const rows = memberRows(group, members, T, undefined)
    assert.equal(rows.length, 4)
    assert.is(new Set(rows.map((r) => r.taskID)).size, 4)
    const { taskID: _, ...first } = rows[0]!
    assert.equal(first, {
      tenantID: 't1',
      deviceIntID: 1,
      deviceID: 'd1',
      deviceName: 'n1',
      topic: 'cmd',
      payload: 'on',
      qos: 1,
      timeoutMs: 30_000,
      expiresAt: T + 60_000,
      status: 'queued',
      dispatchAt: T,
      parentID: 40,
      groupIntID: 9,
      groupID: 'g9',
      groupName: 'pumps',
      scheduleID: 4,
      publishUser: 'ann',
      userIntID: 2,
    })
  },
)

steps(
  'memberRows :: without a rate all due at once; at a rate, member i due i/rate seconds later',
  () => {
    const due = (rate: number | undefined) =>
      memberRows(group, members, T, rate).map((r) => r.dispatchAt! - T)
    assert.equal(due(undefined), [0, 0, 0, 0])
    assert.equal(due(2), [0, 500, 1000, 1500])
    assert.equal(due(3), [0, 333, 666, 1000])
  },
)

const progress = (p: Partial<Parameters<typeof groupReport>[0]>) => ({
  total: 4,
  delivered: 0,
  succeeded: 0,
  failed: 0,
  pending: 4,
  settled: 0,
  ...p,
})

steps(
  'groupOutcome :: succeeded without failures, failed when all failed, partial otherwise',
  () => {
    assert.is(groupOutcome(progress({ settled: 4, succeeded: 3, delivered: 1 })), 'succeeded')
    assert.is(groupOutcome(progress({ settled: 4, failed: 4 })), 'failed')
    assert.is(groupOutcome(progress({ settled: 4, failed: 1, succeeded: 3 })), 'partial')
  },
)

steps(
  'groupReport :: the share settled while members move; awaiting while delivered ones wait',
  () => {
    assert.equal(groupReport(progress({ settled: 1, succeeded: 1, pending: 3 })), {
      done: false,
      pct: 25,
      message: '1 of 4 members settled',
      awaiting: false,
      counts: { total: 4, delivered: 0, succeeded: 1, failed: 0, pending: 3 },
    })
    const waiting = groupReport(progress({ settled: 1, succeeded: 1, delivered: 2, pending: 1 }))
    assert.equal([waiting.done, waiting.done || waiting.awaiting], [false, true])
    const third = groupReport(progress({ total: 3, settled: 1, failed: 1, pending: 2 }))
    assert.equal([third.done, !third.done && third.pct], [false, 33])
  },
)

steps('groupReport :: once all settled, done with the outcome in the message', () => {
  assert.equal(groupReport(progress({ settled: 4, succeeded: 2, failed: 2, pending: 0 })), {
    done: true,
    message: '4 of 4 members settled: partial',
    outcome: 'partial',
    counts: { total: 4, delivered: 0, succeeded: 2, failed: 2, pending: 0 },
  })
  const empty = groupReport(progress({ total: 0, pending: 0 }))
  assert.equal([empty.done, empty.message], [true, '0 of 0 members settled: succeeded'])
})

steps.run()
