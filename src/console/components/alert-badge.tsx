/**
 * The number of open (current) alerts beside the navigation's Alerts link: read once, then again on every alert
 * event of the stream (raised, cleared, acknowledged). Hidden at zero.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { words } from '../i18n.ts'
import { onLive } from '../live.ts'

const bw = words(
  { open: (n: number) => (n === 1 ? '1 open alert' : `${n} open alerts`) },
  { open: (n: number) => `${n} 条未结束告警` },
)

export function AlertBadge() {
  const [count, setCount] = useState(0)
  useEffect(() => {
    let stale = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const read = () =>
      api<Page<unknown>>('/current_alerts?_limit=1').then(
        (p) => !stale && setCount(p.meta.count),
        () => undefined, // the badge waits for the next event
      )
    void read()
    // a burst of alert events reads once
    const off = onLive((e) => {
      if (!e.type.startsWith('alert.')) return
      clearTimeout(timer)
      timer = setTimeout(() => void read(), 300)
    })
    return () => {
      stale = true
      clearTimeout(timer)
      off()
    }
  }, [])
  if (!count) return null
  return (
    <span class="nav-badge" role="status" aria-label={bw().open(count)}>
      {count > 99 ? '99+' : count}
    </span>
  )
}
