/**
 * A group's command: sent now (POST /group_publish) with its progress followed live, or scheduled (POST
 * /group_schedule_publish). Progress needs no polling: each member's `command.status` event carries the group
 * command's row id (`parentID`), so the members' counts are kept from the stream; the group row's own events give
 * its status, and once it is final (succeeded / failed / partial) the task's result is read once for the totals.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, type Page } from '../api.ts'
import { t, words } from '../i18n.ts'
import { onLive } from '../live.ts'
import { payloadOf } from './command-composer.tsx'
import { ErrorNote } from './paged-list.tsx'
import {
  createSchedule,
  emptyTiming,
  sw,
  timingBody,
  WhenFields,
  type Schedule,
} from './schedule-fields.tsx'

/** The task's `result` of a group command (and what the page counts from the stream). */
export interface Counts {
  total: number
  delivered: number
  succeeded: number
  failed: number
  pending: number
}

interface TaskStatus {
  status: number
  message: string | null
  result: Counts | string | null
}

/** `command.status` data: members have parentID, the group's own row has neither parentID nor device. */
interface StatusEvent {
  taskID?: string
  commandStatus?: string
  parentID?: number | null
  deviceIntID?: number | null
  groupID?: string | null
}

const FINAL = new Set(['succeeded', 'failed', 'partial', 'unsent', 'canceled', 'expired'])
const DELIVERED = new Set(['delivered', 'succeeded', 'failed'])
const FAILED = new Set(['failed', 'timed_out', 'expired', 'canceled', 'unsent'])

/** The members' counts from their last statuses, counted as the task's result counts them. */
export function countsOf(statuses: Iterable<string>, total: number): Counts {
  let delivered = 0
  let succeeded = 0
  let failed = 0
  let moved = 0
  for (const s of statuses) {
    if (DELIVERED.has(s)) delivered++
    if (s === 'succeeded') succeeded++
    if (FAILED.has(s)) failed++
    if (s !== 'queued' && s !== 'sent') moved++
  }
  return { total, delivered, succeeded, failed, pending: Math.max(0, total - moved) }
}

interface Run {
  taskID: string
  /** The group command's control-log row id, once read. */
  parentID: number | null
  status: string
  counts: Counts
}

const resultOf = (ts: TaskStatus): Counts | null =>
  typeof ts.result === 'string' ? (JSON.parse(ts.result) as Counts) : ts.result

/** The run of the last group command sent from this page, kept current from the event stream. */
function useGroupRun(groupIntID: number, groupID: string, onChange: () => void) {
  const members = useRef(new Map<number, Map<string, string>>())
  const groups = useRef(new Map<string, string>())
  const run = useRef<Run | null>(null)
  const [, render] = useState(0)
  const update = (r: Run) => {
    run.current = r
    render((n) => n + 1)
  }
  const settle = async (taskID: string) => {
    const counts = resultOf(await api<TaskStatus>(`/task_status/${taskID}`))
    if (counts && run.current?.taskID === taskID) update({ ...run.current, counts })
  }
  const recount = () => {
    const r = run.current
    const m = r?.parentID == null ? undefined : members.current.get(r.parentID)
    if (!r || !m || FINAL.has(r.status)) return
    update({ ...r, counts: countsOf(m.values(), Math.max(r.counts.total, m.size)) })
  }

  useEffect(
    () =>
      onLive((e) => {
        if (e.type !== 'command.status') return
        const d = (e.data as { data?: StatusEvent }).data
        if (!d?.taskID || !d.commandStatus) return
        if (d.parentID != null) {
          let m = members.current.get(d.parentID)
          if (!m) members.current.set(d.parentID, (m = new Map()))
          m.set(d.taskID, d.commandStatus)
          if (run.current?.parentID === d.parentID) recount()
        } else if (d.deviceIntID == null && d.groupID === groupID) {
          groups.current.set(d.taskID, d.commandStatus)
          onChange()
          const r = run.current
          if (r?.taskID !== d.taskID) return
          update({ ...r, status: d.commandStatus })
          if (FINAL.has(d.commandStatus)) void settle(d.taskID)
        }
      }),
    [],
  )

  const start = async (taskID: string, total: number) => {
    const zero = { total, delivered: 0, succeeded: 0, failed: 0, pending: total }
    update({ taskID, parentID: null, status: groups.current.get(taskID) ?? 'queued', counts: zero })
    const [ts, logs] = await Promise.all([
      api<TaskStatus>(`/task_status/${taskID}`),
      api<Page<{ id: number }>>(`/groups/${groupIntID}/control_logs?taskID=${taskID}`),
    ])
    const r = run.current
    if (r?.taskID !== taskID) return
    update({ ...r, parentID: logs.items[0]?.id ?? null, counts: resultOf(ts) ?? r.counts })
    recount()
    if (FINAL.has(r.status)) await settle(taskID)
  }
  return { run: run.current, start }
}

export const gw = words(
  {
    groupCommand: 'Group command',
    needAck: 'Each member acknowledges',
    sendToGroup: 'Send to group',
    progress: 'Group command progress',
    groupStatus: 'Group command status',
    task: 'Task',
    total: 'Total',
    delivered: 'Delivered',
    succeeded: 'Succeeded',
    failed: 'Failed',
    pending: 'Pending',
  },
  {
    groupCommand: '分组指令',
    needAck: '每个成员确认',
    sendToGroup: '发送到分组',
    progress: '分组指令进度',
    groupStatus: '分组指令状态',
    task: '任务',
    total: '合计',
    delivered: '已送达',
    succeeded: '成功',
    failed: '失败',
    pending: '等待中',
  },
)

export function GroupCommand(p: {
  groupIntID: number
  groupID: string
  deviceCount: number
  onChange: () => void
}) {
  const [payload, setPayload] = useState('')
  const [topic, setTopic] = useState('')
  const [needAck, setNeedAck] = useState('1')
  const [timeout, setTimeout_] = useState('')
  const [timing, setTiming] = useState(emptyTiming())
  const [name, setName] = useState('')
  const [note, setNote] = useState<Schedule | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const { run, start } = useGroupRun(p.groupIntID, p.groupID, p.onChange)

  const send = async (ev: Event) => {
    ev.preventDefault()
    setError(null)
    setNote(null)
    setBusy(true)
    try {
      const body: Record<string, unknown> = {
        groupIntID: p.groupIntID,
        payload: payloadOf(payload),
        needAck: Number(needAck),
      }
      if (topic.trim()) body.topic = topic.trim()
      if (timeout) body.timeout = Number(timeout)
      const when = timingBody(timing)
      if (when) {
        const s = { ...body, ...when, scheduleName: name.trim() }
        setNote(await createSchedule('group', s))
      } else {
        const a = await api<{ taskID: string }>('/group_publish', { method: 'POST', body })
        p.onChange()
        await start(a.taskID, p.deviceCount)
      }
    } catch (e) {
      setError(e instanceof ApiError ? `${e.message} ${JSON.stringify(e.errors)}` : String(e))
    } finally {
      setBusy(false)
    }
  }

  const value = (set: (v: string) => void) => (e: Event) =>
    set((e.currentTarget as HTMLInputElement).value)
  const w = gw()
  const s = sw()
  return (
    <>
      <form class="composer" onSubmit={send} aria-label={w.groupCommand}>
        <label>
          {t().payload}
          <textarea rows={3} required value={payload} onInput={value(setPayload)} />
        </label>
        <label>
          {t().topic}
          <input value={topic} placeholder="inbox" onInput={value(setTopic)} />
        </label>
        <label>
          {w.needAck}
          <select value={needAck} onChange={value(setNeedAck)}>
            <option value="1">{t().yes}</option>
            <option value="0">{t().no}</option>
          </select>
        </label>
        <label>
          {t().timeoutS}
          <input type="number" min={1} max={3600} value={timeout} onInput={value(setTimeout_)} />
        </label>
        <WhenFields value={timing} onChange={setTiming} />
        {timing.when !== 'now' && (
          <label>
            {s.scheduleName}
            <input required maxLength={50} value={name} onInput={value(setName)} />
          </label>
        )}
        <button type="submit" disabled={busy}>
          {timing.when === 'now' ? w.sendToGroup : s.createSchedule}
        </button>
        <ErrorNote error={error} />
      </form>
      {note && (
        <p role="status" aria-label={s.schedule}>
          {s.scheduled(note.scheduleName, note.nextRunAt ?? '—')}{' '}
          <a href="/schedules">{t().schedules}</a>
        </p>
      )}
      {run && <Progress run={run} />}
    </>
  )
}

function Progress({ run }: { run: Run }) {
  const w = gw()
  const c = run.counts
  const rows: Array<[string, number]> = [
    [w.total, c.total],
    [w.delivered, c.delivered],
    [w.succeeded, c.succeeded],
    [w.failed, c.failed],
    [w.pending, c.pending],
  ]
  return (
    <section aria-label={w.progress} class="card">
      <p>
        {w.task} <span class="mono">{run.taskID}</span>:{' '}
        <strong role="status" aria-label={w.groupStatus}>
          {run.status}
        </strong>
      </p>
      <progress max={c.total || 1} value={c.total - c.pending} aria-label={w.progress} />
      <div class="figures">
        {rows.map(([k, v]) => (
          <div key={k} class="figure">
            <span class="figure-label">{k}</span>
            <span class="figure-value">{v}</span>
          </div>
        ))}
      </div>
    </section>
  )
}
