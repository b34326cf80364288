/**
 * A device's (or gateway's) Logs region, server-paged, newest first: uplink events, the connection log and the
 * control logs (command-list.tsx). The first page follows the one event stream: `telemetry` re-reads the events,
 * `device.online`/`device.offline` the connection log.
 */
import { useState } from 'preact/hooks'
import { t, words } from '../i18n.ts'
import { CommandTable } from './command-list.tsx'
import { useLog } from './live-log.tsx'
import { TableHead, ErrorNote, Pager } from './paged-list.tsx'
import type { EventWire } from '../api/wire.ts'
import type { ConnectLogWire } from '../api/wire.ts'

const w = words(
  {
    logs: 'Logs',
    events: 'Events',
    connectLog: 'Connection log',
    controlLogs: 'Control logs',
    topic: 'Topic',
    payload: 'Payload',
    result: 'Result',
    ip: 'IP',
    connection: 'Connection',
  },
  {
    logs: '日志',
    events: '上行消息',
    connectLog: '连接日志',
    controlLogs: '下发日志',
    topic: '主题',
    payload: '内容',
    result: '结果',
    ip: 'IP',
    connection: '连接',
  },
)

type EventRow = EventWire
type ConnectRow = ConnectLogWire

function EventsTable({ base, deviceID }: { base: string; deviceID: string }) {
  const l = useLog<EventRow>(`${base}/events`, deviceID, ['telemetry'])
  const s = w()
  return (
    <>
      <table aria-label={s.events}>
        <TableHead columns={[t().time, s.topic, s.payload, s.result]} />
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
        <TableHead columns={[t().time, s.connection, s.ip]} />
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
