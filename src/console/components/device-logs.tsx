/**
 * A device's (or gateway's) logs, server-paged, newest first: uplink events, the connection log and the control
 * logs (its commands). The first page follows the one event stream: `telemetry` re-reads the events,
 * `device.online`/`device.offline` the connection log, `command.status` updates a command's status in place (and
 * re-reads for a command not on the page). Queued commands have Cancel (`DELETE /device_publish?taskIDs=`) for
 * the roles that may write.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, session } from '../api.ts'
import { t, words } from '../i18n.ts'
import { deviceOf, onLive } from '../live.ts'
import { errorText } from './device-edit.tsx'
import { ErrorNote, Pager, usePagedList } from './paged-list.tsx'

const w = words(
  {
    logs: 'Logs',
    events: 'Events',
    connectLog: 'Connection log',
    controlLogs: 'Control logs',
    recentCommands: 'Recent commands',
    topic: 'Topic',
    payload: 'Payload',
    result: 'Result',
    ip: 'IP',
    connection: 'Connection',
    taskID: 'Task ID',
    commandStatus: 'Status',
    response: 'Response',
    cancel: 'Cancel',
    cancelCommand: (taskID: string) => `Cancel command ${taskID}`,
    confirmCancel: 'Cancel this queued command?',
  },
  {
    logs: '日志',
    events: '上行消息',
    connectLog: '连接日志',
    controlLogs: '下发日志',
    recentCommands: '最近指令',
    topic: '主题',
    payload: '内容',
    result: '结果',
    ip: 'IP',
    connection: '连接',
    taskID: '任务 ID',
    commandStatus: '状态',
    response: '回执',
    cancel: '取消',
    cancelCommand: (taskID: string) => `取消指令 ${taskID}`,
    confirmCancel: '取消这条排队中的指令？',
  },
)

interface EventRow {
  id: number
  topic: string | null
  payload: string | null
  status: number
  reason: string | null
  msgTime: string | null
}
interface ConnectRow {
  id: number
  IP: string | null
  connectStatus: number
  connectStatusLabel: string | null
  reason: string | null
  msgTime: string | null
}
interface ControlRow {
  id: number
  taskID: string | null
  topic: string | null
  /** Text; a gateway's control log answers it parsed. */
  payload: unknown
  commandStatus: string | null
  responseCode: number | null
  createAt: string | null
}

/**
 * One paged log of `path` (with `filters`), newest first; page 1 is read again (at most every 300 ms) when an
 * event of `types` about `deviceID` arrives.
 */
function useLog<T>(
  path: string,
  deviceID: string,
  types: readonly string[],
  filters: Record<string, string> = {},
) {
  const [version, setVersion] = useState(0)
  const list = usePagedList<T>(path, filters, 0, version)
  const onFirst = useRef(true)
  onFirst.current = list.page === 1
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const off = onLive((e) => {
      if (!types.includes(e.type) || deviceOf(e) !== deviceID || !onFirst.current || timer) return
      timer = setTimeout(() => {
        timer = undefined
        setVersion((v) => v + 1)
      }, 300)
    })
    return () => {
      off()
      clearTimeout(timer)
    }
  }, [deviceID])
  return { ...list, bump: () => setVersion((v) => v + 1) }
}

const text = (v: unknown) =>
  v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v)

function EventsTable({ base, deviceID }: { base: string; deviceID: string }) {
  const l = useLog<EventRow>(`${base}/events`, deviceID, ['telemetry'])
  const s = w()
  return (
    <>
      <table aria-label={s.events}>
        <thead>
          <tr>
            <th scope="col">{t().time}</th>
            <th scope="col">{s.topic}</th>
            <th scope="col">{s.payload}</th>
            <th scope="col">{s.result}</th>
          </tr>
        </thead>
        <tbody>
          {l.data?.items.map((r) => (
            <tr key={r.id}>
              <td>{r.msgTime ?? '—'}</td>
              <td class="mono">{r.topic ?? '—'}</td>
              <td class="mono payload">{r.payload ?? '—'}</td>
              <td>{r.status === 1 ? '✓' : (r.reason ?? '✗')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {l.data && (
        <Pager page={l.page} pages={l.pages} count={l.data.meta.count} onPage={l.setPage} />
      )}
      <ErrorNote error={l.error} />
    </>
  )
}

/** Where a connection log is read: a device's own path, or the tenant's list filtered by deviceID. */
export interface ConnectSource {
  path: string
  filters?: Record<string, string>
}

function ConnectTable({ source, deviceID }: { source: ConnectSource; deviceID: string }) {
  const l = useLog<ConnectRow>(
    source.path,
    deviceID,
    ['device.online', 'device.offline'],
    source.filters,
  )
  const s = w()
  return (
    <>
      <table aria-label={s.connectLog}>
        <thead>
          <tr>
            <th scope="col">{t().time}</th>
            <th scope="col">{s.connection}</th>
            <th scope="col">{s.ip}</th>
          </tr>
        </thead>
        <tbody>
          {l.data?.items.map((r) => (
            <tr key={r.id}>
              <td>{r.msgTime ?? '—'}</td>
              <td>
                {r.connectStatusLabel ?? r.connectStatus}
                {r.reason ? ` (${r.reason})` : ''}
              </td>
              <td class="mono">{r.IP ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {l.data && (
        <Pager page={l.page} pages={l.pages} count={l.data.meta.count} onPage={l.setPage} />
      )}
      <ErrorNote error={l.error} />
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
  const rows = useRef<ControlRow[]>([])
  rows.current = l.data?.items ?? []
  const s = w()

  useEffect(
    () =>
      onLive((e) => {
        if (e.type !== 'command.status' || deviceOf(e) !== p.deviceID) return
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
    [p.deviceID],
  )

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
        <thead>
          <tr>
            <th scope="col">{t().time}</th>
            <th scope="col">{s.taskID}</th>
            <th scope="col">{s.payload}</th>
            <th scope="col">{s.commandStatus}</th>
            <th scope="col">{s.response}</th>
            {canWrite && <th scope="col">{t().actions}</th>}
          </tr>
        </thead>
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

type Tab = 'events' | 'connect' | 'control'

/** The Logs region of the device or gateway at `base` (`/devices/42`, `/gateways/7`). */
export function DeviceLogs(p: { base: string; deviceID: string; connect: ConnectSource }) {
  const [tab, setTab] = useState<Tab>('events')
  const s = w()
  const tabs: Array<[Tab, string]> = [
    ['events', s.events],
    ['connect', s.connectLog],
    ['control', s.controlLogs],
  ]
  return (
    <section aria-labelledby="logs-h" class="card">
      <h2 id="logs-h">{s.logs}</h2>
      <div class="tabs" role="tablist" aria-label={s.logs}>
        {tabs.map(([k, label]) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={tab === k}
            class={tab === k ? 'tab on' : 'tab'}
            onClick={() => setTab(k)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tabs.find(([k]) => k === tab)?.[1]}>
        {tab === 'events' && <EventsTable base={p.base} deviceID={p.deviceID} />}
        {tab === 'connect' && <ConnectTable source={p.connect} deviceID={p.deviceID} />}
        {tab === 'control' && (
          <CommandTable base={p.base} deviceID={p.deviceID} label={s.controlLogs} />
        )}
      </div>
    </section>
  )
}

export const recentCommandsLabel = () => w().recentCommands
