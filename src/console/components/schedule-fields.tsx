/**
 * The "When" of a command: now, once at a time, every N minutes or at each match of a cron expression
 * (`scheduleType` 1, 2, 3 of `/device_schedule_publish` and `/group_schedule_publish`), the fields that pick it, and
 * what the schedule lists show of a schedule. Shared by the command composer, the group page and /schedules.
 */
import { api } from '../api/client.ts'
import { words } from '../i18n.ts'
import type { ScheduleWire } from '../api/wire.ts'

export type When = 'now' | 'once' | 'interval' | 'cron'

/** The timing being edited: the kind and the text of each kind's field. */
export interface Timing {
  when: When
  at: string
  minutes: string
  cron: string
}

export const emptyTiming = (when: When = 'now'): Timing => ({
  when,
  at: '',
  minutes: '60',
  cron: '0 * * * *',
})

/** A schedule as both lists answer it (the fields the console uses). */
export type Schedule = ScheduleWire & { deviceID?: string; groupID?: string }

export const sw = words(
  {
    when: 'When',
    now: 'Now',
    once: 'Once at',
    interval: 'Every (minutes)',
    cron: 'Cron',
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- widens: any type number reads it
    kinds: { 1: 'once', 2: 'interval', 3: 'cron' } as Record<number, string>,
    every: (n: number) => `every ${n} min`,
    scheduleName: 'Schedule name',
    createSchedule: 'Create schedule',
    nextRun: 'Next run',
    schedule: 'Schedule',
    scheduled: (name: string, next: string) => `Schedule “${name}” created, next run ${next}.`,
    cronHint: 'minute hour day month weekday',
    serviceTime: 'service time zone',
  },
  {
    when: '执行时间',
    now: '立即',
    once: '定时于',
    interval: '间隔（分钟）',
    cron: 'Cron',
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- widens: any type number reads it
    kinds: { 1: '定时', 2: '间隔', 3: 'Cron' } as Record<number, string>,
    every: (n: number) => `每 ${n} 分钟`,
    scheduleName: '任务名称',
    createSchedule: '创建定时任务',
    nextRun: '下次执行',
    schedule: '定时任务',
    scheduled: (name: string, next: string) => `定时任务“${name}”已创建，下次执行 ${next}。`,
    cronHint: '分 时 日 月 周',
    serviceTime: '服务时区',
  },
)

/** `2026-11-23T10:00` or `...T10:00:05` (datetime-local) as the wire's `2026-11-23 10:00:00`. */
export const wireTime = (local: string) =>
  local ? `${local.replace('T', ' ')}${local.length === 16 ? ':00' : ''}` : ''

/** The wire's `2026-11-23 10:00:00` as a datetime-local value. */
export const localTime = (wire: string | null) => (wire ? wire.replace(' ', 'T') : '')

/** The timing fields of a schedule body (scheduleType and its one field); null for Now. */
export function timingBody(t: Timing): Record<string, unknown> | null {
  if (t.when === 'once') return { scheduleType: 1, crontabTime: wireTime(t.at) }
  if (t.when === 'interval') return { scheduleType: 2, IntervalMinute: t.minutes.trim() }
  if (t.when === 'cron') return { scheduleType: 3, cron: t.cron }
  return null
}

/** The Timing of a stored schedule (for editing it). */
export function timingOf(s: Schedule): Timing {
  const t = emptyTiming(s.scheduleType === 1 ? 'once' : s.scheduleType === 2 ? 'interval' : 'cron')
  if (s.crontabTime) t.at = localTime(s.crontabTime)
  if (s.IntervalMinute !== null) t.minutes = String(s.IntervalMinute)
  if (s.cron) t.cron = s.cron
  return t
}

/** What a list shows of a schedule's timing. */
export function timingText(s: Schedule): string {
  const w = sw()
  if (s.scheduleType === 1) return s.crontabTime ?? '—'
  if (s.scheduleType === 2) return w.every(s.IntervalMinute ?? 0)
  return s.cron ?? '—'
}

/** The When select and the one field of the kind picked. */
export function WhenFields(p: { value: Timing; onChange: (t: Timing) => void; now?: boolean }) {
  const w = sw()
  const set = (k: keyof Timing) => (e: Event) =>
    p.onChange({ ...p.value, [k]: (e.currentTarget as HTMLInputElement).value })
  return (
    <>
      <label>
        {w.when}
        <select value={p.value.when} onChange={set('when')}>
          {p.now !== false && <option value="now">{w.now}</option>}
          <option value="once">{w.once}</option>
          <option value="interval">{w.interval}</option>
          <option value="cron">{w.cron}</option>
        </select>
      </label>
      {p.value.when === 'once' && (
        <label>
          {w.once} ({w.serviceTime})
          <input type="datetime-local" step={1} required value={p.value.at} onInput={set('at')} />
        </label>
      )}
      {p.value.when === 'interval' && (
        <label>
          {w.interval}
          <input
            type="number"
            min={1}
            max={525600}
            required
            value={p.value.minutes}
            onInput={set('minutes')}
          />
        </label>
      )}
      {p.value.when === 'cron' && (
        <label>
          {w.cron}
          <input
            required
            class="mono"
            placeholder={w.cronHint}
            value={p.value.cron}
            onInput={set('cron')}
          />
        </label>
      )}
    </>
  )
}

/**
 * Creates a device or group schedule and reads it back: the answer is a 201 without a body, so the newest schedule
 * of that name is the one created.
 */
export async function createSchedule(
  kind: 'device' | 'group',
  body: Record<string, unknown>,
): Promise<Schedule | null> {
  await api<null>(`/${kind}_schedule_publish`, { method: 'POST', body })
  const q = new URLSearchParams({
    scheduleName: String(body.scheduleName),
    _sort: 'id',
    _order: 'desc',
    _limit: '1',
  })
  const page = await api<{ items: Schedule[] }>(`/${kind}_schedule_publish?${q}`)
  return page.items[0] ?? null
}
