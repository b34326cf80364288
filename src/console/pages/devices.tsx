/** /devices: the tenant's devices, paged by the server, searched by name, online state live. */
import { useEffect, useState } from 'preact/hooks'
import { api, type Device, type Page } from '../api.ts'
import { t } from '../i18n.ts'
import { deviceOf, onLive } from '../live.ts'

const LIMIT = 20

export function OnlineBadge({ online }: { online: boolean }) {
  return <span class={online ? 'badge on' : 'badge off'}>{online ? t().online : t().offline}</span>
}

export function DevicesPage() {
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const [data, setData] = useState<Page<Device> | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let stale = false
    const q = new URLSearchParams({ _page: String(page), _limit: String(LIMIT) })
    if (search.trim()) q.set('deviceName_like', search.trim())
    const timer = setTimeout(
      () =>
        api<Page<Device>>(`/devices?${q}`).then(
          (d) => !stale && (setData(d), setError(null)),
          (e: Error) => !stale && setError(e.message),
        ),
      search ? 200 : 0,
    )
    return () => {
      stale = true
      clearTimeout(timer)
    }
  }, [search, page])

  // a device connecting or leaving flips its row at once
  useEffect(
    () =>
      onLive((e) => {
        if (e.type !== 'device.online' && e.type !== 'device.offline') return
        const id = deviceOf(e)
        const status = e.type === 'device.online' ? 1 : 0
        setData(
          (d) =>
            d && {
              ...d,
              items: d.items.map((x) => (x.deviceID === id ? { ...x, deviceStatus: status } : x)),
            },
        )
      }),
    [],
  )

  const pages = data ? Math.max(1, Math.ceil(data.meta.count / LIMIT)) : 1
  return (
    <section>
      <h1>{t().devices}</h1>
      <div class="toolbar">
        <input
          type="search"
          aria-label={t().searchDevices}
          placeholder={t().searchDevices}
          value={search}
          onInput={(e) => {
            setSearch((e.currentTarget as HTMLInputElement).value)
            setPage(1)
          }}
        />
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!data ? (
        <p>{t().loading}</p>
      ) : (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">{t().name}</th>
                <th scope="col">{t().deviceID}</th>
                <th scope="col">{t().product}</th>
                <th scope="col">{t().status}</th>
                <th scope="col">{t().lastSeen}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={`/devices/${d.id}`}>{d.deviceName}</a>
                  </td>
                  <td class="mono">{d.deviceID}</td>
                  <td>{d.productName}</td>
                  <td>
                    <OnlineBadge online={d.deviceStatus === 1} />
                  </td>
                  <td>{d.lastSeenAt ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.items.length === 0 && <p>{t().none}</p>}
          <div class="pager">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              {t().previous}
            </button>
            <span>{t().pageOf(page, pages, data.meta.count)}</span>
            <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
              {t().next}
            </button>
          </div>
        </>
      )}
    </section>
  )
}
