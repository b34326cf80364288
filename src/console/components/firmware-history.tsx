/**
 * The firmware side of a device's and a product's pages: a device's firmware history (GET /devices/{id}/firmware:
 * its state in each rollout, newest change first, read again on its `firmware.device` events, which the device page
 * passes on as `version`), and the versions a product's devices run with their counts (GET
 * /products/{id}/soft_versions), each leading to the devices list filtered by that version.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import type { RolloutDeviceWire } from '../api/wire.ts'
import { t } from '../i18n.ts'
import { fww, statusText } from './firmware-words.ts'
import { ErrorNote, PagedTable, usePagedList } from './paged-list.tsx'
import type { SoftVersion } from './rollout-form.tsx'

/** Device `id`'s rollouts: the package's version leading to the rollout, its status and the device's state in it. */
export function FirmwareHistory({ id, version }: { id: number; version: number }) {
  const w = fww()
  const list = usePagedList<RolloutDeviceWire>(
    `/devices/${id}/firmware`,
    { _sort: 'updateAt', _order: 'desc' },
    0,
    version,
  )
  return (
    <section class="card" aria-labelledby="fw-history-h">
      <h2 id="fw-history-h">{w.firmwareHistory}</h2>
      <ErrorNote error={list.error} />
      <div class="table-scroll stack">
        <PagedTable
          label={w.firmwareHistory}
          list={list}
          columns={[w.version, w.rollout, w.deviceStatus, w.attempt, w.progress, w.error, t().time]}
          row={(r) => (
            <tr key={r.rolloutIntID}>
              <td data-label={w.version} class="mono">
                <a
                  href={`/firmware/rollouts/${r.rolloutIntID}`}
                  aria-label={w.rolloutOfVersion(r.version)}
                >
                  {r.version}
                </a>
              </td>
              <td data-label={w.rollout}>
                {statusText('rolloutStatus', r.rolloutStatus, r.rolloutStatusLabel)}
              </td>
              <td data-label={w.deviceStatus}>
                {statusText('otaStatus', r.status, r.statusLabel)}
              </td>
              <td data-label={w.attempt}>{r.attempt}</td>
              <td data-label={w.progress}>{r.progress === null ? '—' : `${r.progress}%`}</td>
              <td data-label={w.error} class="fw-error">
                {r.error ?? ''}
              </td>
              <td data-label={t().time} class="time">
                {r.updateAt}
              </td>
            </tr>
          )}
        />
      </div>
    </section>
  )
}

/** The devices list filtered by a product and a version (the list keeps its filters in the address). */
const devicesOf = (productID: string, softVersion: string) =>
  `/devices?${new URLSearchParams({ productID, softVersion })}`

/** Product `id`'s fleet by version: each version, how many devices run it, and a link to them. */
export function FleetVersions({ id, productID }: { id: number; productID: string }) {
  const w = fww()
  const [versions, setVersions] = useState<SoftVersion[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let stale = false
    api<SoftVersion[]>(`/products/${id}/soft_versions`).then(
      (v) => !stale && setVersions(v),
      (e: Error) => !stale && setError(e.message),
    )
    return () => {
      stale = true
    }
  }, [id])
  return (
    <section class="card" aria-labelledby="fleet-versions-h">
      <h2 id="fleet-versions-h">{w.fleetVersions}</h2>
      <ErrorNote error={error} />
      {versions && versions.length === 0 && <p>{t().none}</p>}
      {versions && versions.length > 0 && (
        <table aria-label={w.fleetVersions} class="narrow">
          <thead>
            <tr>
              <th scope="col">{w.version}</th>
              <th scope="col">{w.deviceCount}</th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.softVersion ?? ''}>
                <td class="mono">{v.softVersion ?? <span class="muted">{w.notReported}</span>}</td>
                <td>
                  {v.softVersion === null ? (
                    v.count
                  ) : (
                    <a
                      href={devicesOf(productID, v.softVersion)}
                      aria-label={`${w.devicesRunning(v.softVersion)}: ${v.count}`}
                    >
                      {v.count}
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <a href={`/firmware?productID=${encodeURIComponent(productID)}`}>{w.productPackages}</a>
      </p>
    </section>
  )
}
