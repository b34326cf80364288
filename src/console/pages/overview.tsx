/**
 * /: the fleet's figures (GET /overview), re-read when devices connect or alerts change, and every 30 s; each figure
 * that counts a list links to it.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t } from '../i18n.ts'
import { onLive } from '../live.ts'
import { ErrorNote } from '../components/paged-list.tsx'
import type { OverviewWire } from '../api/wire.ts'

/** What GET /api/v1/overview answers. */
export type Overview = OverviewWire

/** Re-reads at most once per this many ms however many events arrive. */
const DEBOUNCE_MS = 2000
const REFRESH_MS = 30_000

const relevant = (type: string) =>
  type === 'device.online' || type === 'device.offline' || type.startsWith('alert.')

/** One figure; with `href`, a link to the list it counts. */
function Figure({ label, value, href }: { label: string; value: number; href?: string }) {
  const body = (
    <>
      <span class="figure-label">{label}</span>
      <span class="figure-value">{value}</span>
    </>
  )
  return (
    <div class="figure" role="group" aria-label={label}>
      {href ? (
        <a class="figure-link" href={href}>
          {body}
        </a>
      ) : (
        body
      )}
    </div>
  )
}

export function OverviewPage() {
  const [data, setData] = useState<Overview | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    let last = 0
    const read = () => {
      timer = undefined
      last = Date.now()
      api<Overview>('/overview').then(
        (d) => !stopped && (setData(d), setError(null)),
        (e: Error) => !stopped && setError(e.message),
      )
    }
    /** One read now or when the last one is DEBOUNCE_MS old; events in between share it. */
    const soon = () => {
      if (timer) return
      timer = setTimeout(read, Math.max(0, last + DEBOUNCE_MS - Date.now()))
    }
    read()
    const off = onLive((e) => relevant(e.type) && soon())
    const every = setInterval(soon, REFRESH_MS)
    return () => {
      stopped = true
      off()
      clearInterval(every)
      clearTimeout(timer)
    }
  }, [])

  const s = t()
  return (
    <section>
      <h1>{s.overview}</h1>
      <ErrorNote error={error} />
      {!data ? (
        <p>{s.loading}</p>
      ) : (
        <>
          <div class="figures">
            <Figure label={s.devices} value={data.devices} href="/devices" />
            <Figure label={s.gateways} value={data.gateways} href="/devices?kind=gateways" />
            <Figure label={s.onlineNow} value={data.online} href="/devices?status=online" />
            <Figure label={s.offline} value={data.offline} href="/devices?status=offline" />
            <Figure label={s.blocked} value={data.blockedCount} href="/devices?status=blocked" />
            <Figure label={s.messagesPerMinute} value={data.messagesPerMinute} />
          </div>
          <section class="card" aria-labelledby="open-alerts">
            <h2 id="open-alerts">{s.openAlerts}</h2>
            <div class="figures">
              <Figure label={s.total} value={data.openAlerts.total} href="/alerts" />
              {(['1', '2', '3', '4'] as const).map((k) => (
                <Figure key={k} label={s.severity[k]} value={data.openAlerts.bySeverity[k] ?? 0} />
              ))}
            </div>
          </section>
        </>
      )}
    </section>
  )
}
