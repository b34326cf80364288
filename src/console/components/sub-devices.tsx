/**
 * The Sub-devices region: the devices under a gateway (`GET /devices?gateway={id}`) or a parent device
 * (`?parentDevice={id}`), server-paged, each linked to its page. `hideEmpty`: render nothing while there are none
 * (a device page, where most devices have no children).
 */
import { type Device } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { OnlineBadge } from './device-rows.tsx'
import { TableHead, ErrorNote, Pager, usePagedList } from './paged-list.tsx'

const w = words({ subDevices: 'Sub-devices' }, { subDevices: '子设备' })

export function SubDevices(p: {
  filter: 'gateway' | 'parentDevice'
  id: number
  hideEmpty?: boolean
}) {
  const l = usePagedList<Device>('/devices', { [p.filter]: String(p.id) }, 0)
  const s = w()
  if (p.hideEmpty && (!l.data || l.data.meta.count === 0) && !l.error) return null
  return (
    <section aria-labelledby="sub-h" class="card">
      <h2 id="sub-h">{s.subDevices}</h2>
      {l.data && l.data.meta.count === 0 ? (
        <p>{t().none}</p>
      ) : (
        <table aria-label={s.subDevices}>
          <TableHead columns={[t().name, t().deviceID, t().product, t().status, t().lastSeen]} />
          <tbody>
            {l.data?.items.map((d) => (
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
      )}
      {l.data && l.data.meta.count > 0 && (
        <Pager page={l.page} pages={l.pages} count={l.data.meta.count} onPage={l.setPage} />
      )}
      <ErrorNote error={l.error} />
    </section>
  )
}
