/** The pure steps of src/services/schedules.ts: merging an edit, its next due time, a firing's command. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  commandOf,
  mergeSchedule,
  nextRunAtOf,
  retargets,
} from '../../../src/services/schedules.ts'
import type { ScheduleRecord } from '../../../store/types.ts'

const steps = suite('schedule steps')

const MIN = 60_000
const T = Date.UTC(2026, 0, 1, 0, 0, 0)

const stored = (fields: Partial<ScheduleRecord> = {}): ScheduleRecord => ({
  id: 1,
  tenantID: 't1',
  kind: 'device',
  targetIntID: 5,
  targetID: 'd5',
  deviceID: 'd5',
  groupID: null,
  scheduleName: 'every 10',
  scheduleType: 2,
  crontabTime: null,
  IntervalMinute: 10,
  cron: null,
  topic: 'inbox',
  payload: 'on',
  qos: 1,
  timeout: 30,
  ttl: null,
  needAck: null,
  enable: 1,
  nextRunAt: T + 5 * MIN,
  lastRunAt: null,
  lastTaskID: null,
  userIntID: 2,
  createUser: 'ann',
  createAt: T - MIN,
  updateAt: null,
  ...fields,
})

steps(
  'mergeSchedule :: absent fields keep the stored values, null clears, a once time read in the zone',
  () => {
    assert.equal(mergeSchedule({ payload: 'off', topic: null }, stored(), T, 'UTC'), {
      scheduleType: 2,
      crontabTime: null,
      IntervalMinute: 10,
      cron: null,
      scheduleName: 'every 10',
      topic: null,
      payload: 'off',
      qos: 1,
      timeout: 30,
      ttl: null,
      needAck: null,
      enable: 1,
    })
    const once = mergeSchedule(
      { scheduleType: 1, crontabTime: '2026-01-01 08:30:00' },
      stored(),
      T,
      'Asia/Shanghai',
    )
    assert.equal(
      [once.scheduleType, once.crontabTime, once.IntervalMinute],
      [1, T + 30 * MIN, null],
    )
  },
)

steps('mergeSchedule :: a once time in the past or missing refused with its field', () => {
  const refused = (b: Parameters<typeof mergeSchedule>[0]) => {
    try {
      mergeSchedule(b, undefined, T, 'UTC')
    } catch (e) {
      return Object.keys((e as { errors: Record<string, string> }).errors)
    }
    return []
  }
  assert.equal(refused({ scheduleType: 1, crontabTime: '2025-12-31 23:00:00' }), ['crontabTime'])
  assert.equal(refused({ scheduleType: 1 }), ['crontabTime'])
  assert.equal(refused({ scheduleType: 1, crontabTime: '2026-02-30 00:00:00' }), ['crontabTime'])
  assert.equal(refused({ scheduleType: 2, IntervalMinute: 5 }), [])
})

steps(
  'nextRunAtOf :: kept while the timing holds, from now when it changed, none when disabled',
  () => {
    const s = stored()
    const timing = { scheduleType: 2, crontabTime: null, IntervalMinute: 10, cron: null, enable: 1 }
    assert.is(nextRunAtOf(timing, s, T, 'UTC'), T + 5 * MIN)
    assert.is(nextRunAtOf({ ...timing, IntervalMinute: 20 }, s, T, 'UTC'), T + 20 * MIN)
    assert.is(nextRunAtOf(timing, undefined, T, 'UTC'), T + 10 * MIN)
    assert.is(nextRunAtOf({ ...timing, enable: 0 }, s, T, 'UTC'), null)
    const once = { ...timing, scheduleType: 1, crontabTime: T + MIN, IntervalMinute: null }
    assert.is(nextRunAtOf(once, s, T, 'UTC'), T + MIN)
    assert.is(nextRunAtOf(once, stored({ lastRunAt: T + MIN }), T, 'UTC'), null)
  },
)

steps(
  'commandOf :: a device firing without needAck, a group firing with it; null fields left out',
  () => {
    assert.equal(commandOf(stored()), {
      kind: 'device',
      body: { deviceIntID: 5, topic: 'inbox', payload: 'on', qos: 1, timeout: 30, ttl: undefined },
    })
    assert.equal(
      commandOf(stored({ kind: 'group', targetIntID: 9, topic: null, qos: null, needAck: 0 })),
      {
        kind: 'group',
        body: {
          groupIntID: 9,
          topic: undefined,
          payload: 'on',
          qos: undefined,
          timeout: 30,
          ttl: undefined,
          needAck: 0,
        },
      },
    )
  },
)

steps('retargets :: only a named other target or a record id looks the target up again', () => {
  assert.is(retargets('device', {}, stored()), false)
  assert.is(retargets('device', { deviceID: 'd5' }, stored()), false)
  assert.is(retargets('device', { deviceID: 'd6' }, stored()), true)
  assert.is(retargets('device', { deviceIntID: 5 }, stored()), true)
  assert.is(retargets('group', { groupID: 'd5' }, stored()), false)
  assert.is(retargets('group', { groupIntID: 1 }, stored()), true)
})

steps.run()
