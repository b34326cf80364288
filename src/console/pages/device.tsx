/**
 * /devices/{id}: the device's info (Edit, Block/Unblock), its connection, sub-devices, latest values, state
 * (desired, reported, delta; edited by admins and users) and charts following the event stream, its console (not for
 * viewers), its firmware history (its softVersion set live when an update of it succeeds) and its logs.
 */
import { Fragment } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, session, type LatestValue } from '../api/client.ts'
import { Charts } from '../components/charts.tsx'
import { ConnectionCard } from '../components/connection-card.tsx'
import { DeviceAlerts } from '../components/device-alerts.tsx'
import { DeviceConsole } from '../components/device-console.tsx'
import { EDITABLE, EditControls, editWords, type Editing } from '../components/device-edit.tsx'
import { DeviceLogs } from '../components/device-logs.tsx'
import { DeviceState, useDeviceState } from '../components/device-state.tsx'
import { FirmwareHistory } from '../components/firmware-history.tsx'
import { RecordTitle } from '../components/history-link.tsx'
import { SubDevices } from '../components/sub-devices.tsx'
import { t, words } from '../i18n.ts'
import type { Telemetry } from '../live.ts'
import { NotFound, readError, useDeviceEvents } from '../components/record-page.tsx'
import { TableHead } from '../components/paged-list.tsx'
import { OnlineBadge } from '../components/device-rows.tsx'
import type { DeviceAWire, DeviceWire, RolloutDeviceEventWire } from '../api/wire.ts'

/** The detail answer, which the page's edits keep up to date. */
type DeviceDetail = DeviceWire &
  Editing &
  Partial<Pick<DeviceAWire, 'parentDevice' | 'parentDeviceName'>>

const w = words(
  { gateway: 'Gateway', parentDevice: 'Parent device' },
  { gateway: '网关', parentDevice: '父设备' },
)

const show = (v: LatestValue['value']) => (v === null ? '—' : String(v))

/** Epoch seconds or milliseconds → local `YYYY-MM-DD HH:MM:SS`. */
function timeText(time: number) {
  const d = new Date(time < 1e12 ? time * 1000 : time)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}

/** The device's facts, and its editable fields with Edit and Block for those who may write. */
function DeviceInfo(p: {
  device: DeviceDetail
  canWrite: boolean
  onSaved: (d: DeviceDetail) => void
}) {
  const { device, canWrite } = p
  const variantA = 'parentDevice' in device
  const ew = editWords()
  return (
    <section aria-labelledby="info-h" class="card">
      <h2 id="info-h">{t().info}</h2>
      <dl class="info">
        <dt>{t().status}</dt>
        <dd>
          <OnlineBadge online={device.deviceStatus === 1} />
          {device.blocked === 1 && <span class="badge blocked">{ew.blocked}</span>}
        </dd>
        <dt>{t().deviceID}</dt>
        <dd class="mono">{device.deviceID}</dd>
        <dt>{t().product}</dt>
        <dd>{device.productName}</dd>
        <dt>{t().protocol}</dt>
        <dd>{device.cloudProtocolLabel ?? '—'}</dd>
        {device.gateway != null && (
          <>
            <dt>{w().gateway}</dt>
            <dd>
              {/* Variant A's gateways have their own pages; Variant B's are devices */}
              <a href={`${variantA ? '/gateways' : '/devices'}/${device.gateway}`}>
                {device.gatewayName ?? device.gateway}
              </a>
            </dd>
          </>
        )}
        {device.parentDevice != null && (
          <>
            <dt>{w().parentDevice}</dt>
            <dd>
              <a href={`/devices/${device.parentDevice}`}>
                {device.parentDeviceName ?? device.parentDevice}
              </a>
            </dd>
          </>
        )}
        {EDITABLE.map((k) => (
          <Fragment key={k}>
            <dt>{ew[k]}</dt>
            <dd>{device[k] ?? '—'}</dd>
          </Fragment>
        ))}
        <dt>{t().lastSeen}</dt>
        <dd>{device.lastSeenAt ?? '—'}</dd>
        <dt>{t().created}</dt>
        <dd>{device.createAt ?? '—'}</dd>
      </dl>
      {canWrite && (
        <EditControls
          path={`/devices/${device.id}`}
          record={device}
          nameField="deviceName"
          nameLabel={t().name}
          onSaved={p.onSaved}
          uplink={
            variantA && device.deviceType === 1
              ? { productID: device.productID, self: device.id }
              : undefined
          }
        />
      )}
    </section>
  )
}

/** The device's latest value of each data point, live. */
function LatestValues({ latest }: { latest: LatestValue[] }) {
  return (
    <section aria-labelledby="latest-h" class="card">
      <h2 id="latest-h">{t().latestValues}</h2>
      {latest.length === 0 ? (
        <p>{t().none}</p>
      ) : (
        <table>
          <TableHead columns={[t().dataPoint, t().value, t().time]} />
          <tbody>
            {latest.map((r) => (
              <tr key={r.dataPointID}>
                <td>{r.dataPointName}</td>
                <td class="mono">
                  {show(r.value)}
                  {r.value !== null && r.unit ? ` ${r.unit}` : ''}
                </td>
                <td>{r.time ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

export function DevicePage({ id }: { id: number }) {
  const [device, setDevice] = useState<DeviceDetail | null>(null)
  const [latest, setLatest] = useState<LatestValue[]>([])
  const [error, setError] = useState<string | null>(null)
  const [firmwareReads, setFirmwareReads] = useState(0)
  const state = useDeviceState(id)

  useEffect(() => {
    let stale = false
    setDevice(null)
    setError(null)
    Promise.all([
      api<DeviceDetail>(`/devices/${id}`),
      api<LatestValue[]>(`/devices/${id}/latest`),
    ]).then(
      ([d, l]) => {
        if (stale) return
        setDevice(d)
        setLatest(l)
      },
      (e: unknown) => !stale && setError(readError(e)),
    )
    return () => {
      stale = true
    }
  }, [id])

  useDeviceEvents(
    device?.deviceID,
    (status) => setDevice((d) => d && { ...d, deviceStatus: status }),
    (e) => {
      if (e.type === 'device.state') state.reload()
      else if (e.type === 'firmware.device') {
        // its history is read again; an update that succeeded set its softVersion to the package's version
        const d = (e.data as { data?: RolloutDeviceEventWire } | null)?.data
        setFirmwareReads((n) => n + 1)
        if (d?.status === 'updated') setDevice((x) => x && { ...x, softVersion: d.version })
      } else if (e.type === 'telemetry') {
        const tm = e.data as Telemetry
        setLatest((rows) =>
          rows.map((r) =>
            r.dataPointID in tm.values
              ? { ...r, value: tm.values[r.dataPointID] ?? null, time: timeText(tm.time) }
              : r,
          ),
        )
      }
    },
  )

  if (error) return <NotFound error={error} />
  if (!device) return <p>{t().loading}</p>
  const canWrite = session.value?.role !== 'viewer'
  // Variant A's detail names parentDevice; Variant B's has none (its gateways are devices of deviceType 1)
  const variantA = 'parentDevice' in device
  const base = `/devices/${device.id}`
  return (
    <section>
      <RecordTitle title={device.deviceName} type="device" id={device.id} />
      <DeviceInfo device={device} canWrite={canWrite} onSaved={setDevice} />
      <DeviceAlerts deviceID={device.deviceID} />
      <ConnectionCard path={base} />
      {variantA ? (
        <SubDevices filter="parentDevice" id={device.id} hideEmpty />
      ) : (
        device.deviceType === 1 && <SubDevices filter="gateway" id={device.id} />
      )}
      <LatestValues latest={latest} />
      <DeviceState id={device.id} state={state} canWrite={canWrite} />
      <Charts deviceID={device.deviceID} productID={device.productID} />
      {canWrite && <DeviceConsole id={device.id} deviceID={device.deviceID} state={state.doc} />}
      <FirmwareHistory id={device.id} version={firmwareReads} />
      <DeviceLogs
        base={base}
        deviceID={device.deviceID}
        connect={{ path: `${base}/connect_logs` }}
      />
    </section>
  )
}
