/**
 * A device's open alerts on its page: each with its message, the values that fired it, its severity and since
 * when, linked to the alerts page; shown only while there are some, re-read on every alert event of the device.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import type { CurrentAlertWire } from '../api/wire.ts'
import { t, words } from '../i18n.ts'
import { afterTelemetry, deviceOf, onLive } from '../live.ts'

/** The values that fired an alert, as `temp 91.5, hum 20` (its detail: data point id → value). */
export function alertValues(detail: unknown): string {
  if (!detail || typeof detail !== 'object') return '—'
  const parts = Object.entries(detail as Record<string, unknown>).map(
    ([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`,
  )
  return parts.length ? parts.join(', ') : '—'
}

const aw = words(
  { openAlerts: 'Open alerts', all: 'All alerts', since: 'since' },
  { openAlerts: '未结束的告警', all: '全部告警', since: '开始于' },
)

export function DeviceAlerts({ deviceID }: { deviceID: string }) {
  const [alerts, setAlerts] = useState<CurrentAlertWire[]>([])
  useEffect(() => {
    let stale = false
    const read = () =>
      api<Page<CurrentAlertWire>>(
        `/current_alerts?${new URLSearchParams({ deviceID, _limit: '20' })}`,
      ).then(
        (p) => !stale && setAlerts(p.items),
        () => undefined,
      )
    void read()
    const off = onLive((e) => {
      if (e.type.startsWith('alert.') && deviceOf(e) === deviceID) void read()
    })
    // an open alert firing again counts up with its new values, without an event: read again after a value
    const offValues = afterTelemetry(new Set([deviceID]), () => void read())
    return () => {
      stale = true
      off()
      offValues()
    }
  }, [deviceID])
  if (!alerts.length) return null
  const s = aw()
  return (
    <section aria-labelledby="alerts-h" class="card open-alerts">
      <h2 id="alerts-h">
        {s.openAlerts} ({alerts.length})
      </h2>
      <ul>
        {alerts.map((a) => (
          <li key={a.id}>
            <span class={`sev sev${a.alertSeverity}`}>
              {t().severity[String(a.alertSeverity) as '1'] ?? a.alertSeverityLabel}
            </span>{' '}
            <strong>{a.alertName}</strong>: {a.alertContent ?? '—'}{' '}
            <span class="mono">({alertValues(a.alertDetail)})</span>{' '}
            <span class="muted">
              {s.since} {a.startTime}
            </span>
          </li>
        ))}
      </ul>
      <a href="/alerts">{s.all}</a>
    </section>
  )
}
