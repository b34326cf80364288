/**
 * A group command's progress, kept from the event stream without polling: each member's `command.status` event
 * carries the group command's row id (`parentID`), so the members' counts are kept from the stream; the group
 * row's own events give its status, and once it is final (succeeded / failed / partial) the task's result is read
 * once for the totals.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { words } from '../i18n.ts'
import { onLive } from '../live.ts'
import { commandText } from './command-words.ts'
import type { TaskStatusWire } from '../api/wire.ts'

/** The task's `result` of a group command (and what the page counts from the stream). */
export interface Counts {
  total: number
  delivered: number
  succeeded: number
  failed: number
  pending: number
}

/** The task's status; a group command's `result` holds its counts (the API types it as any JSON). */
type TaskStatus = Omit<TaskStatusWire, 'result'> & { result: Counts | string | null }

/** `command.status` data: members have parentID, the group's own row has neither parentID nor device. */
interface StatusEvent {
  taskID?: string
  commandStatus?: string
  /** Why the group command did not go out (a needAck 0 publish that failed). */
  statusReason?: string | null
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

export interface Run {
  taskID: string
  /** The group command's control-log row id, once read. */
  parentID: number | null
  status: string
  /** Why it ended so (statusReason), when it did not go out. */
  reason?: string | null
  counts: Counts
}

const resultOf = (ts: TaskStatus): Counts | null =>
  typeof ts.result === 'string' ? (JSON.parse(ts.result) as Counts) : ts.result

/** The run of the last group command sent from this page, kept current from the event stream. */
export function useGroupRun(groupIntID: number, groupID: string, onChange: () => void) {
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
          if (!m) {
            m = new Map()
            members.current.set(d.parentID, m)
          }
          m.set(d.taskID, d.commandStatus)
          if (run.current?.parentID === d.parentID) recount()
        } else if (d.deviceIntID == null && d.groupID === groupID) {
          groups.current.set(d.taskID, d.commandStatus)
          onChange()
          const r = run.current
          if (r?.taskID !== d.taskID) return
          update({ ...r, status: d.commandStatus, reason: d.statusReason ?? null })
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

export const pw = words(
  {
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

/** Labelled counts side by side (a task's totals). */
export function Figures({ rows }: { rows: ReadonlyArray<[string, number]> }) {
  return (
    <div class="figures">
      {rows.map(([k, v]) => (
        <div key={k} class="figure">
          <span class="figure-label">{k}</span>
          <span class="figure-value">{v}</span>
        </div>
      ))}
    </div>
  )
}

export function Progress({ run }: { run: Run }) {
  const w = pw()
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
          {commandText({ commandStatus: run.status, statusReason: run.reason })}
        </strong>
      </p>
      <progress max={c.total || 1} value={c.total - c.pending} aria-label={w.progress} />
      <Figures rows={rows} />
    </section>
  )
}
