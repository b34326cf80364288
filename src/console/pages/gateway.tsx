/**
 * /gateways/{id}: a gateway's info (Edit, Block/Unblock), its connection, its sub-devices (each linked to its page)
 * and its logs; online state live from the event stream.
 */
import { Fragment } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { ConnectionCard } from '../components/connection-card.tsx'
import { EDITABLE, EditControls, editWords, type Editing } from '../components/device-edit.tsx'
import { DeviceLogs } from '../components/device-logs.tsx'
import { SubDevices } from '../components/sub-devices.tsx'
import { t, words } from '../i18n.ts'
import { NotFound, readError, useDeviceEvents } from '../components/record-page.tsx'
import { OnlineBadge } from '../components/device-rows.tsx'

/** GET /gateways/{id} (the fields shown). */
type Gateway = Editing & {
  id: number
  gatewayName: string
  deviceID: string
  deviceStatus: number
  productName: string
  gatewayProtocolLabel: string | null
  lastSeenAt: string | null
  createAt: string | null
}

const w = words({ gateway: 'Gateway' }, { gateway: '网关' })

export function GatewayPage({ id }: { id: number }) {
  const [gw, setGw] = useState<Gateway | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let stale = false
    setGw(null)
    setError(null)
    api<Gateway>(`/gateways/${id}`).then(
      (g) => !stale && setGw(g),
      (e: unknown) => !stale && setError(readError(e)),
    )
    return () => {
      stale = true
    }
  }, [id])

  useDeviceEvents(gw?.deviceID, (status) => setGw((g) => g && { ...g, deviceStatus: status }))

  if (error) return <NotFound error={error} />
  if (!gw) return <p>{t().loading}</p>
  const base = `/gateways/${gw.id}`
  const ew = editWords()
  return (
    <section>
      <h1>{gw.gatewayName}</h1>
      <section aria-labelledby="info-h" class="card">
        <h2 id="info-h">
          {w().gateway}: {t().info}
        </h2>
        <dl class="info">
          <dt>{t().status}</dt>
          <dd>
            <OnlineBadge online={gw.deviceStatus === 1} />
            {gw.blocked === 1 && <span class="badge blocked">{ew.blocked}</span>}
          </dd>
          <dt>{t().deviceID}</dt>
          <dd class="mono">{gw.deviceID}</dd>
          <dt>{t().product}</dt>
          <dd>{gw.productName}</dd>
          <dt>{t().protocol}</dt>
          <dd>{gw.gatewayProtocolLabel ?? '—'}</dd>
          {EDITABLE.map((k) => (
            <Fragment key={k}>
              <dt>{ew[k]}</dt>
              <dd>{gw[k] ?? '—'}</dd>
            </Fragment>
          ))}
          <dt>{t().lastSeen}</dt>
          <dd>{gw.lastSeenAt ?? '—'}</dd>
          <dt>{t().created}</dt>
          <dd>{gw.createAt ?? '—'}</dd>
        </dl>
        {session.value?.role !== 'viewer' && (
          <EditControls
            path={base}
            record={gw}
            nameField="gatewayName"
            nameLabel={t().name}
            onSaved={setGw}
          />
        )}
      </section>
      <ConnectionCard path={base} />
      <SubDevices filter="gateway" id={gw.id} />
      <DeviceLogs
        base={base}
        deviceID={gw.deviceID}
        connect={{ path: '/device_connect_logs', filters: { deviceID: gw.deviceID } }}
      />
    </section>
  )
}
