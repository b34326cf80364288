/**
 * A device's commands (its control logs), server-paged, newest first: a command's status changes in place on its
 * `command.status` event (one not on the page re-reads it); queued ones have Cancel
 * (`DELETE /device_publish?taskIDs=`, asked first) for the roles that may write.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { deviceOf, onLive } from '../live.ts'
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

/** A command's `command.status` event changes its status in place; one not on the page re-reads the page. */
function useLiveStatuses(deviceID: string, l: ReturnType<typeof useLog<ControlRow>>) {
  const rows = useRef<ControlRow[]>([])
  rows.current = l.data?.items ?? []
  useEffect(
    () =>
      onLive((e) => {
        if (e.type !== 'command.status' || deviceOf(e) !== deviceID) return
        const d = (e.data as { data?: { taskID?: string; commandStatus?: string } }).data
        if (!d?.taskID || !d.commandStatus) return
        if (!rows.current.some((r) => r.taskID === d.taskID)) return l.bump()
        l.setData(
          (pg) =>
            pg && {
              ...pg,
              items: pg.items.map((r) =>
                r.taskID === d.taskID ? { ...r, commandStatus: d.commandStatus ?? null } : r,
              ),
            },
        )
      }),
    [deviceID],
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
  useLiveStatuses(p.deviceID, l)
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
              <td class="mono">{r.commandStatus ?? '—'}</td>
              <td>{r.responseCode ?? '—'}</td>
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
