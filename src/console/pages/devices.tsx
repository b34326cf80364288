/** /devices: the tenant's devices, paged by the server, searched by name, online state live. */
import { useEffect, useState } from 'preact/hooks'
import type { Device } from '../api.ts'
import { ErrorNote, Pager, SearchBox, usePagedList } from '../components/paged-list.tsx'
import { t } from '../i18n.ts'
import { deviceOf, onLive } from '../live.ts'

export function OnlineBadge({ online }: { online: boolean }) {
  return <span class={online ? 'badge on' : 'badge off'}>{online ? t().online : t().offline}</span>
}

export function DevicesPage() {
  const [search, setSearch] = useState('')
  const { page, setPage, pages, data, setData, error } = usePagedList<Device>(
    '/devices',
    { deviceName_like: search },
    search ? 200 : 0,
  )

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

  return (
    <section>
      <h1>{t().devices}</h1>
      <div class="toolbar">
        <SearchBox
          label={t().searchDevices}
          value={search}
          onSearch={(v) => {
            setSearch(v)
            setPage(1)
          }}
        />
      </div>
      <ErrorNote error={error} />
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
          <Pager page={page} pages={pages} count={data.meta.count} onPage={setPage} />
        </>
      )}
    </section>
  )
}
