/**
 * /certs/{id}: one client certificate: its common name, state and creator, Enable/Disable and Delete (asked first)
 * for admins and users, its certificate and the tenant's CA certificate (PEM, each with Copy; never its private
 * key, which its creation showed once), and the devices bound to it (each leading to its page) with Unbind, and
 * devices found by name to bind.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session, type Device, type Page } from '../api/client.ts'
import type { CertDeviceWire, CertWire } from '../api/wire.ts'
import { enumLabel } from '../components/admin-words.ts'
import { CopyText } from '../components/copy-text.tsx'
import { PicksForm } from '../components/picks-form.tsx'
import { errorText } from '../components/error-text.ts'
import { ErrorNote, PagedTable, RowButton, usePagedList } from '../components/paged-list.tsx'
import { NotFound, readError } from '../components/record-page.tsx'
import { t, words } from '../i18n.ts'
import { navigate } from '../router.ts'

export const cw = words(
  {
    table: 'Certificates',
    searchCerts: 'Search certificates',
    newCert: 'New certificate',
    commonName: 'Common name (CN)',
    commonNameField: 'Common name (CN, optional)',
    cnHint: 'blank: a random id',
    usable: 'Usable',
    status: 'Status',
    create: 'Create',
    cancel: 'Cancel',
    done: 'Done',
    enable: 'Enable',
    disable: 'Disable',
    delete: 'Delete',
    createdBy: 'Created by',
    created: (name: string) => `Certificate ${name} created`,
    keyOnce:
      'Copy the private key now: the console will not show it again. Keep it secret; the device presents it with the certificate.',
    certificate: 'Certificate (PEM)',
    privateKey: 'Private key (PEM)',
    caCertificate: 'CA certificate (PEM)',
    pemTexts: 'Certificate and CA',
    confirmDelete: (name: string) => `Delete the certificate ${name}?`,
    devices: 'Bound devices',
    unbind: 'Unbind',
    confirmUnbind: (name: string) => `Unbind ${name} from this certificate?`,
    bindDevices: 'Bind devices',
    searchToBind: 'Search devices to bind',
    bindSelected: 'Bind selected',
    noneFound: 'No device with this name.',
  },
  {
    table: '证书',
    searchCerts: '搜索证书',
    newCert: '新建证书',
    commonName: '通用名称（CN）',
    commonNameField: '通用名称（CN，可选）',
    cnHint: '留空：随机生成',
    usable: '可用',
    status: '状态',
    create: '创建',
    cancel: '取消',
    done: '完成',
    enable: '启用',
    disable: '停用',
    delete: '删除',
    createdBy: '创建人',
    created: (name: string) => `证书 ${name} 已创建`,
    keyOnce: '请立即复制私钥：控制台不会再次显示。请妥善保管，设备连接时与证书一同出示。',
    certificate: '证书（PEM）',
    privateKey: '私钥（PEM）',
    caCertificate: 'CA 证书（PEM）',
    pemTexts: '证书与 CA',
    confirmDelete: (name: string) => `删除证书 ${name}？`,
    devices: '已绑定设备',
    unbind: '解绑',
    confirmUnbind: (name: string) => `将 ${name} 与此证书解绑？`,
    bindDevices: '绑定设备',
    searchToBind: '搜索要绑定的设备',
    bindSelected: '绑定所选',
    noneFound: '没有此名称的设备。',
  },
)

/** The devices bound to certificate `id`, each leading to its page; Unbind and binding more for writers. */
function BoundDevices({ id, canWrite }: { id: number; canWrite: boolean }) {
  const ww = cw()
  const [version, setVersion] = useState(0)
  const list = usePagedList<CertDeviceWire>(`/certs/${id}/devices`, {}, 0, version)
  const changed = () => setVersion((v) => v + 1)
  const unbind = async (d: CertDeviceWire) => {
    if (!window.confirm(ww.confirmUnbind(d.deviceName))) return
    try {
      await api(`/certs/${id}/devices?ids=${d.id}`, { method: 'DELETE' })
      changed()
    } catch (e) {
      list.setError(errorText(e))
    }
  }
  return (
    <section class="card" aria-labelledby="cert-devices-h">
      <h2 id="cert-devices-h">{ww.devices}</h2>
      <ErrorNote error={list.error} />
      <div class="stack">
        <PagedTable
          label={ww.devices}
          list={list}
          columns={[t().name, t().deviceID, canWrite && t().actions]}
          row={(d) => (
            <tr key={d.id}>
              <td data-label={t().name}>
                <a href={`/devices/${d.id}`}>{d.deviceName}</a>
              </td>
              <td data-label={t().deviceID}>
                <span class="mono">{d.deviceID}</span>
              </td>
              {canWrite && (
                <td data-label={t().actions} class="actions">
                  <RowButton
                    secondary
                    label={ww.unbind}
                    name={d.deviceName}
                    onClick={() => unbind(d)}
                  />
                </td>
              )}
            </tr>
          )}
        />
      </div>
      {canWrite && (
        <BindDevices
          id={id}
          version={version}
          bound={list.data?.items.map((d) => d.id) ?? []}
          onBound={changed}
        />
      )}
    </section>
  )
}

/** Devices found by name (the first 20; those listed as bound left out), checked and bound at once. */
function BindDevices(p: { id: number; version: number; bound: number[]; onBound: () => void }) {
  const ww = cw()
  return (
    <PicksForm
      title={ww.bindDevices}
      searchLabel={ww.searchToBind}
      none={ww.noneFound}
      submit={ww.bindSelected}
      version={p.version}
      exclude={p.bound}
      read={async (search) => {
        const q = new URLSearchParams({ _limit: '20', _sort: 'deviceName', _order: 'asc' })
        if (search) q.set('deviceName_like', search)
        const r = await api<Page<Device>>(`/devices?${q}`)
        return r.items.map((d) => ({ id: d.id, name: d.deviceName }))
      }}
      send={(ids) => api(`/certs/${p.id}/devices`, { method: 'POST', body: { devicesIntID: ids } })}
      onSent={p.onBound}
    />
  )
}

/** The certificate's facts, with Enable/Disable and Delete for writers. */
function CertInfo(p: { cert: CertWire; canWrite: boolean; onChanged: (c: CertWire) => void }) {
  const { cert } = p
  const ww = cw()
  const [error, setError] = useState<string | null>(null)
  const toggle = () =>
    api<CertWire>(`/certs/${cert.id}`, {
      method: 'PUT',
      body: { enable: cert.enable ? 0 : 1 },
    }).then(
      (c) => (setError(null), p.onChanged(c)),
      (e: unknown) => setError(errorText(e)),
    )
  const remove = () =>
    window.confirm(ww.confirmDelete(cert.name)) &&
    api(`/certs?ids=${cert.id}`, { method: 'DELETE' }).then(
      () => navigate('/certs'),
      (e: unknown) => setError(errorText(e)),
    )
  return (
    <section class="card" aria-label={t().info}>
      <dl class="info">
        <dt>{ww.commonName}</dt>
        <dd class="mono">{cert.CN}</dd>
        <dt>{ww.status}</dt>
        <dd>{enumLabel('certEnable', cert.enable)}</dd>
        <dt>{ww.createdBy}</dt>
        <dd>{cert.createUser ?? ''}</dd>
        <dt>{t().created}</dt>
        <dd>{cert.createAt}</dd>
      </dl>
      <ErrorNote error={error} />
      {p.canWrite && (
        <p>
          <button type="button" onClick={() => void toggle()}>
            {cert.enable ? ww.disable : ww.enable}
          </button>{' '}
          <button type="button" class="danger" onClick={() => void remove()}>
            {ww.delete}
          </button>
        </p>
      )}
    </section>
  )
}

export function CertPage({ id }: { id: number }) {
  const canWrite = session.value?.role !== 'viewer'
  const [cert, setCert] = useState<CertWire | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let stale = false
    api<CertWire>(`/certs/${id}`).then(
      (c) => !stale && setCert(c),
      (e: unknown) => !stale && setError(readError(e)),
    )
    return () => {
      stale = true
    }
  }, [id])
  if (error) return <NotFound error={error} />
  if (!cert) return <p>{t().loading}</p>
  const ww = cw()
  return (
    <section>
      <h1>{cert.name}</h1>
      <CertInfo cert={cert} canWrite={canWrite} onChanged={setCert} />
      <section class="card" aria-labelledby="cert-pem-h">
        <h2 id="cert-pem-h">{ww.pemTexts}</h2>
        <CopyText label={ww.certificate} text={cert.cert} />
        <CopyText label={ww.caCertificate} text={cert.root} />
      </section>
      <BoundDevices id={id} canWrite={canWrite} />
    </section>
  )
}
