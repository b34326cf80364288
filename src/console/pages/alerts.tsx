/**
 * /alerts: the current alerts (server paged, filtered by severity and device name) with Acknowledge and Clear for
 * the roles that may write, and the history; re-read when the event stream brings an alert event, and shortly after
 * a value of a device shown (an open alert firing again counts up, with its new values, without an event).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { ErrorNote, PagedTable, SearchBox, usePagedList } from '../components/paged-list.tsx'
import { t } from '../i18n.ts'
import { afterTelemetry, onLive } from '../live.ts'
import { alertValues } from '../components/device-alerts.tsx'
import type { CurrentAlertWire, HistoryAlertWire } from '../api/wire.ts'

/** A current or history alert (the fields the console shows). */
export type Alert = CurrentAlertWire & Partial<Pick<HistoryAlertWire, 'endTime'>>

type Tab = 'current' | 'history'

/** An alert's row; Acknowledge (until acknowledged) and Clear when `actions` (current alerts, roles that write). */
function AlertRow(p: {
  a: Alert
  tab: Tab
  actions: boolean
  act: (p: Promise<unknown>) => unknown
}) {
  const { a, act } = p
  const s = t()
  return (
    <tr>
      <td>{a.deviceName}</td>
      <td>{a.alertName}</td>
      <td class="message">{a.alertContent ?? '—'}</td>
      <td class="mono">{alertValues(a.alertDetail)}</td>
      <td>
        <span class={`sev sev${a.alertSeverity}`}>
          {s.severity[String(a.alertSeverity) as '1'] ?? a.alertSeverityLabel}
        </span>
      </td>
      <td>{a.startTime ?? '—'}</td>
      {p.tab === 'history' && <td>{a.endTime ?? '—'}</td>}
      <td>{a.alertTimes}</td>
      <td>{a.ackAt ? `${s.yes} (${a.ackUser ?? ''})` : s.no}</td>
      {p.actions && (
        <td class="actions">
          {!a.ackAt && (
            <button
              type="button"
              onClick={() => act(api(`/current_alerts/${a.id}/ack`, { method: 'POST' }))}
            >
              {s.acknowledge}
            </button>
          )}{' '}
          <button
            type="button"
            class="secondary"
            onClick={() => act(api(`/current_alerts?ids=${a.id}`, { method: 'DELETE' }))}
          >
            {s.clear}
          </button>
        </td>
      )}
    </tr>
  )
}

function AlertTable({ tab, canWrite }: { tab: Tab; canWrite: boolean }) {
  const [severity, setSeverity] = useState('')
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  const reread = () => setVersion((v) => v + 1)
  const { page, setPage, pages, data, error, setError } = usePagedList<Alert>(
    tab === 'current' ? '/current_alerts' : '/history_alerts',
    { alertSeverity: severity, deviceName_like: search },
    search ? 200 : 0,
    version,
  )

  useEffect(() => onLive((e) => e.type.startsWith('alert.') && reread()), [])
  const shown =
    tab === 'current' ? (data?.items ?? []).flatMap((a) => (a.deviceID ? [a.deviceID] : [])) : []
  useEffect(() => afterTelemetry(new Set(shown), reread), [shown.join()])

  const act = (p: Promise<unknown>) => p.then(reread, (e: Error) => setError(e.message))
  const s = t()
  return (
    <>
      <div class="toolbar">
        <label>
          {s.severityLabel}{' '}
          <select
            value={severity}
            onChange={(e) => {
              setSeverity(e.currentTarget.value)
              setPage(1)
            }}
          >
            <option value="">{s.all}</option>
            {(['1', '2', '3', '4'] as const).map((k) => (
              <option key={k} value={k}>
                {s.severity[k]}
              </option>
            ))}
          </select>
        </label>
        <SearchBox
          label={s.searchDeviceName}
          value={search}
          onSearch={(v) => {
            setSearch(v)
            setPage(1)
          }}
        />
      </div>
      <ErrorNote error={error} />
      <PagedTable
        label={tab === 'current' ? s.currentAlerts : s.history}
        list={{ data, page, pages, setPage }}
        columns={[
          s.deviceName,
          s.alertName,
          s.message,
          s.value,
          s.severityLabel,
          s.startTime,
          tab === 'history' && s.endTime,
          s.times,
          s.acknowledged,
          tab === 'current' && canWrite && s.actions,
        ]}
        row={(a) => (
          <AlertRow key={a.id} a={a} tab={tab} actions={tab === 'current' && canWrite} act={act} />
        )}
      />
    </>
  )
}

export function AlertsPage() {
  const [tab, setTab] = useState<Tab>('current')
  const canWrite = session.value?.role !== 'viewer'
  const s = t()
  return (
    <section>
      <h1>{s.alerts}</h1>
      <div class="tabs" role="tablist" aria-label={s.alerts}>
        {(['current', 'history'] as const).map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={tab === k}
            class={tab === k ? 'tab on' : 'tab'}
            onClick={() => setTab(k)}
          >
            {k === 'current' ? s.currentAlerts : s.history}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tab === 'current' ? s.currentAlerts : s.history}>
        <AlertTable key={tab} tab={tab} canWrite={canWrite} />
      </div>
    </section>
  )
}
