/** The pure steps of src/services/command-steps.ts: a device command's target, row, replay, cancel and waits. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  cancelable,
  deviceCommandRow,
  pickDevice,
  pollPause,
  replayOf,
  settled,
  wakesOf,
  type CommandTarget,
} from '../../../src/services/command-steps.ts'
import { canceledBy } from '../../../src/services/command-events.ts'
import type { CommandStatus } from '../../../store/types.ts'
import { ann, T, thrown } from './_steps.ts'

const steps = suite('command steps')

/** A device as the steps read it (its ids, name, blocked flag and mountpoint). */
const device = (fields: Partial<CommandTarget> = {}) => ({
  id: 5,
  tenantID: 't1',
  deviceID: 'd5',
  deviceName: 'pump',
  blocked: 0,
  productID: 'p1',
  cloudProtocol: 1,
  ...fields,
})

steps(
  'pickDevice :: the tenant device named by either id; 404 for none, a foreign or a mismatch',
  () => {
    const d5 = device()
    assert.is(pickDevice('t1', d5, undefined), d5)
    assert.is(pickDevice('t1', undefined, d5), d5)
    assert.is(pickDevice('t1', d5, device()), d5)
    const notFound = { name: 'NotFound', errors: { deviceID: 'no such device' } }
    assert.equal(
      thrown(() => pickDevice('t1', undefined, undefined)),
      notFound,
    )
    assert.equal(
      thrown(() => pickDevice('t2', d5, undefined)),
      notFound,
    )
    assert.equal(
      thrown(() => pickDevice('t1', d5, device({ id: 6, deviceID: 'd6' }))),
      notFound,
    )
  },
)

steps('deviceCommandRow :: a connected device gets a sent row with its QoS 1 deadline', () => {
  const plan = { t: T, taskID: 'k1', online: true, defaultTimeout: 30 }
  assert.equal(deviceCommandRow(ann, device(), { payload: 'on' }, plan), {
    tenantID: 't1',
    taskID: 'k1',
    deviceIntID: 5,
    deviceID: 'd5',
    deviceName: 'pump',
    topic: 'inbox',
    payload: 'on',
    qos: 1,
    timeoutMs: 30_000,
    expiresAt: null,
    status: 'sent',
    statusReason: null,
    sentAt: T,
    deadlineAt: T + 30_000,
    dispatchAt: null,
    scheduleID: null,
    publishUser: 'ann',
    userIntID: 2,
  })
  const qos0 = deviceCommandRow(ann, device(), { payload: 'on', qos: 0, timeout: 5 }, plan)
  assert.equal([qos0.status, qos0.timeoutMs, qos0.deadlineAt], ['sent', 5000, null])
})

steps('deviceCommandRow :: offline queued with a ttl, unsent without one or when blocked', () => {
  const plan = { t: T, taskID: 'k1', online: false, defaultTimeout: 30, scheduleID: 7 }
  const row = (input: { ttl?: number }, d = device()) =>
    deviceCommandRow(ann, d, { payload: 'on', ...input }, plan)
  const queued = row({ ttl: 60 })
  assert.equal(
    [queued.status, queued.expiresAt, queued.sentAt, queued.deadlineAt, queued.scheduleID],
    ['queued', T + 60_000, null, null, 7],
  )
  assert.is(queued.statusReason, null)
  assert.equal([row({}).status, row({}).statusReason], ['unsent', 'device offline, no ttl'])
  assert.equal(
    [row({ ttl: 0 }).status, row({ ttl: 0 }).statusReason],
    ['unsent', 'device offline, no ttl'],
  )
  const blocked = row({ ttl: 60 }, device({ blocked: 1 }))
  assert.equal(
    [blocked.status, blocked.expiresAt, blocked.statusReason],
    ['unsent', T + 60_000, 'device blocked'],
  )
})

steps(
  'deviceCommandRow :: the topic placed under the device; a wildcard or a foreign one refused',
  () => {
    const plan = { t: T, taskID: 'k1', online: false, defaultTimeout: 30 }
    const topic = (t: string) =>
      deviceCommandRow(ann, device(), { payload: 'x', topic: t }, plan).topic
    assert.is(topic('/cmd/a'), 'cmd/a')
    assert.is(topic('/mqtt/t1/p1/d5/cmd/b'), 'cmd/b')
    const refused = {
      name: 'Invalid',
      errors: { topic: 'a topic without wildcards, relative or under the device' },
    }
    assert.equal(
      thrown(() => topic('cmd/+')),
      refused,
    )
    assert.equal(
      thrown(() => topic('/mqtt/t1/p1/d6/cmd')),
      refused,
    )
  },
)

steps(
  'replayOf :: a first call runs, a finished one replays its answer, a running one is 409',
  () => {
    assert.is(replayOf(undefined), undefined)
    const answer = { taskID: 'k1', commandStatus: 'unsent', publishStatus: 0 }
    const reason = { ...answer, statusReason: 'device offline, no ttl' }
    assert.equal(replayOf({ answer: JSON.stringify(reason) }), reason)
    // an answer stored before statusReason was answered replays with none
    assert.equal(replayOf({ answer: JSON.stringify(answer) }), { ...answer, statusReason: null })
    assert.equal(
      thrown(() => replayOf({ answer: null })),
      { name: 'Conflict', errors: { 'Idempotency-Key': 'a call with this key is still running' } },
    )
  },
)

const cmd = (id: number, commandStatus: CommandStatus) => ({ id, taskID: `k${id}`, commandStatus })

steps('canceledBy :: by the user when known, else canceled', () => {
  assert.is(canceledBy('ann'), 'canceled by ann')
  assert.is(canceledBy(null), 'canceled')
  assert.is(canceledBy(undefined), 'canceled')
})

steps('cancelable :: only queued commands are canceled', () => {
  const list = (['queued', 'sent', 'delivered', 'queued', 'succeeded', 'unsent'] as const).map(
    (s, i) => cmd(i + 1, s),
  )
  assert.equal(
    cancelable(list).map((c) => c.id),
    [1, 4],
  )
})

steps(
  'settled :: a wait ends once the command is gone, delivered or final, not while queued or sent',
  () => {
    assert.is(settled(undefined), true)
    assert.is(settled({ commandStatus: 'queued' }), false)
    assert.is(settled({ commandStatus: 'sent' }), false)
    for (const s of [
      'delivered',
      'succeeded',
      'failed',
      'timed_out',
      'canceled',
      'unsent',
    ] as const)
      assert.is(settled({ commandStatus: s }), true, s)
  },
)

steps('wakesOf :: waiters on any change past sent, pollers of the device when queued', () => {
  const e = (commandStatus: string, deviceIntID: number | null = 5) => ({
    taskID: 'k1',
    commandStatus,
    deviceIntID,
  })
  assert.equal(wakesOf(e('queued')), { deviceIntID: 5 })
  assert.equal(wakesOf(e('queued', null)), {})
  assert.equal(wakesOf(e('sent')), {})
  assert.equal(wakesOf(e('delivered')), { taskID: 'k1' })
  assert.equal(wakesOf(e('failed', null)), { taskID: 'k1' })
})

steps(
  'pollPause :: sleeps at most a second until its end; none once found, stopping or past the end',
  () => {
    assert.is(pollPause(0, false, T, T + 5000), 1000)
    assert.is(pollPause(0, false, T, T + 300), 300)
    assert.is(pollPause(1, false, T, T + 5000), undefined)
    assert.is(pollPause(0, true, T, T + 5000), undefined)
    assert.is(pollPause(0, false, T + 5000, T + 5000), undefined)
    assert.is(pollPause(0, false, T, T), undefined)
  },
)

steps.run()
