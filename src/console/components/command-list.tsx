/**
 * A device's commands (its control logs), server-paged, newest first: a command's status (its label, and why it did
 * not reach the device) changes in place on its `command.status` event (one not on the page re-reads the page; a
 * device's answer, `succeeded` or `failed`, re-reads the row for its response code and payload, which the event does
 * not carry); queued ones have Cancel (`DELETE /device_publish?taskIDs=`, asked first) for the roles that may write.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, session, type Page } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { deviceOf, onLive } from '../live.ts'
import { commandEventData, commandText } from './command-words.ts'
import { errorText } from './error-text.ts'
import { text, useLog } from './live-log.tsx'
import { TableHead, ErrorNote, Pager } from './paged-list.tsx'
import type { ControlLogWire } from '../api/wire.ts'

const w = words(
  {
    recentCommands: 'Recent commands',
    taskID: 'Task ID',
    payload: 'Payload',
    commandStatus: 'Status',
    response: 'Response',
    cancel: 'Cancel',
    cancelCommand: (taskID: string) => `Cancel command ${taskID}`,
    confirmCancel: 'Cancel this queued command?',
  },
  {
    recentCommands: '最近指令',
    taskID: '任务 ID',
    payload: '内容',
    commandStatus: '状态',
    response: '回执',
    cancel: '取消',
    cancelCommand: (taskID: string) => `取消指令 ${taskID}`,
    confirmCancel: '取消这条排队中的指令？',
  },
)

export const recentCommandsLabel = () => w().recentCommands

type ControlRow = ControlLogWire

/** The statuses of a device's answer: the row is read again for its response code and payload. */
const ANSWERED = new Set(['succeeded', 'failed'])

/**
 * A command's `command.status` event changes its status and reason in place (the console's label: the API's is of
 * the status before); one not on the page re-reads the page; an answer re-reads its row.
 */
function useLiveStatuses(base: string, deviceID: string, l: ReturnType<typeof useLog<ControlRow>>) {
  const rows = useRef<ControlRow[]>([])
  rows.current = l.data?.items ?? []
  const replace = (taskID: string, change: (r: ControlRow) => ControlRow) =>
    l.setData(
      (pg) => pg && { ...pg, items: pg.items.map((r) => (r.taskID === taskID ? change(r) : r)) },
    )
  useEffect(
    () =>
      onLive((e) => {
        const d = commandEventData(e)
        if (!d || deviceOf(e) !== deviceID) return
        if (!rows.current.some((r) => r.taskID === d.taskID)) return l.bump()
        const { taskID, commandStatus } = d
        const statusReason = d.statusReason ?? null
        replace(taskID, (r) => ({ ...r, commandStatus, statusReason, commandStatusLabel: null }))
        if (!ANSWERED.has(commandStatus)) return
        const q = `${base}/control_logs?taskID=${encodeURIComponent(taskID)}&_limit=1`
        api<Page<ControlRow>>(q).then(
          (pg) => pg.items[0] && replace(taskID, () => pg.items[0]!),
          () => l.bump(),
        )
      }),
    [base, deviceID],
  )
}

/** A device's answer: its code and, after it, its payload (the response message as the device sent it). */
function Response({ r }: { r: ControlRow }) {
  if (r.responseCode === null) return <>—</>
  return (
    <>
      <span class="mono">{r.responseCode}</span>
      {r.responsePayload && <span class="mono"> {r.responsePayload}</span>}
    </>
  )
}

/** The control logs of `base` (a device's or gateway's path), statuses live, Cancel on queued ones. */
export function CommandTable(p: { base: string; deviceID: string; label: string; limit?: number }) {
  const l = useLog<ControlRow>(
    `${p.base}/control_logs`,
    p.deviceID,
    [],
    p.limit ? { _limit: String(p.limit) } : {},
  )
  const [error, setError] = useState<string | null>(null)
  const canWrite = session.value?.role !== 'viewer'
  useLiveStatuses(p.base, p.deviceID, l)
  const s = w()

  const cancel = async (taskID: string) => {
    if (!window.confirm(s.confirmCancel)) return
    setError(null)
    try {
      await api<null>(`/device_publish?taskIDs=${encodeURIComponent(taskID)}`, {
        method: 'DELETE',
      })
      l.bump()
    } catch (e) {
      setError(errorText(e))
    }
  }

  return (
    <>
      <table aria-label={p.label}>
        <TableHead
          columns={[
            t().time,
            s.taskID,
            s.payload,
            s.commandStatus,
            s.response,
            canWrite && t().actions,
          ]}
        />
        <tbody>
          {l.data?.items.map((r) => (
            <tr key={r.id}>
              <td>{r.createAt ?? '—'}</td>
              <td class="mono">{r.taskID ?? '—'}</td>
              <td class="mono payload">{text(r.payload)}</td>
              <td>{r.commandStatus ? commandText(r) : '—'}</td>
              <td class="payload">
                <Response r={r} />
              </td>
              {canWrite && (
                <td>
                  {r.commandStatus === 'queued' && r.taskID && (
                    <button
                      type="button"
                      class="secondary"
                      aria-label={s.cancelCommand(r.taskID)}
                      onClick={() => void cancel(r.taskID!)}
                    >
                      {s.cancel}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {l.data && !p.limit && (
        <Pager page={l.page} pages={l.pages} count={l.data.meta.count} onPage={l.setPage} />
      )}
      <ErrorNote error={l.error ?? error} />
    </>
  )
}
