/**
 * A group's members: the server-paged table (searched by name, online state live) with Remove, and the devices of
 * the group's product not in it yet (searched) to add. Viewers see the table only.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { deviceOf, onLive } from '../live.ts'
import { OnlineBadge } from './device-rows.tsx'
import { ErrorNote, PagedTable, RowButton, SearchBox, usePagedList } from './paged-list.tsx'
import { PicksForm } from './picks-form.tsx'
import { errorText } from './error-text.ts'
import type { GroupDeviceWire } from '../api/wire.ts'

type Member = GroupDeviceWire

export const mw = words(
  {
    members: 'Members',
    searchMembers: 'Search members',
    addMembers: 'Add members',
    searchToAdd: 'Search devices to add',
    addSelected: 'Add selected',
    remove: 'Remove',
    confirmRemove: (name: string) => `Remove “${name}” from the group?`,
    noneToAdd: 'No device of this product outside the group.',
  },
  {
    members: '成员',
    searchMembers: '搜索成员',
    addMembers: '添加成员',
    searchToAdd: '搜索要添加的设备',
    addSelected: '添加所选',
    remove: '移除',
    confirmRemove: (name: string) => `从分组移除“${name}”？`,
    noneToAdd: '该产品没有分组外的设备。',
  },
)

/** A member connecting or leaving flips its row of the page at once (`device.online`, `device.offline`). */
function useLiveMembers(setData: ReturnType<typeof usePagedList<Member>>['setData']) {
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
}

export function GroupMembers(p: { groupIntID: number; canWrite: boolean; onChange: () => void }) {
  const w = mw()
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  const changed = () => {
    setVersion((v) => v + 1)
    p.onChange()
  }
  const { page, setPage, pages, data, setData, error, setError } = usePagedList<Member>(
    `/groups/${p.groupIntID}/devices`,
    { deviceName_like: search },
    search ? 200 : 0,
    version,
  )
  useLiveMembers(setData)
  const remove = async (m: Member) => {
    if (!window.confirm(w.confirmRemove(m.deviceName))) return
    try {
      await api(`/groups/${p.groupIntID}/devices?ids=${m.id}`, { method: 'DELETE' })
      changed()
    } catch (e) {
      setError(errorText(e))
    }
  }
  return (
    <section aria-label={w.members} class="card">
      <h2>{w.members}</h2>
      <div class="toolbar">
        <SearchBox
          label={w.searchMembers}
          value={search}
          onSearch={(v) => {
            setSearch(v)
            setPage(1)
          }}
        />
      </div>
      <ErrorNote error={error} />
      <PagedTable
        label={w.members}
        list={{ data, page, pages, setPage }}
        whileLoading={null}
        columns={[t().name, t().deviceID, t().status, p.canWrite && t().actions]}
        row={(m) => (
          <tr key={m.id}>
            <td>
              <a href={`/devices/${m.id}`}>{m.deviceName}</a>
            </td>
            <td class="mono">{m.deviceID}</td>
            <td>
              <OnlineBadge online={m.deviceStatus === 1} />
            </td>
            {p.canWrite && (
              <td>
                <RowButton
                  secondary
                  label={w.remove}
                  name={m.deviceName}
                  onClick={() => void remove(m)}
                />
              </td>
            )}
          </tr>
        )}
      />
      {p.canWrite && <AddMembers groupIntID={p.groupIntID} version={version} onAdded={changed} />}
    </section>
  )
}

/** The devices that may join (GET /platform_select/groups/{id}/not_joined_devices), checked and added at once. */
function AddMembers(p: { groupIntID: number; version: number; onAdded: () => void }) {
  const w = mw()
  return (
    <PicksForm
      title={w.addMembers}
      searchLabel={w.searchToAdd}
      none={w.noneToAdd}
      submit={w.addSelected}
      version={p.version}
      read={async (search) => {
        const q = search ? `?deviceName_like=${encodeURIComponent(search)}` : ''
        const options = await api<Array<{ label: string; value: number }>>(
          `/platform_select/groups/${p.groupIntID}/not_joined_devices${q}`,
        )
        return options.slice(0, 50).map((o) => ({ id: o.value, name: o.label }))
      }}
      send={(ids) => api(`/groups/${p.groupIntID}/devices`, { method: 'POST', body: { ids } })}
      onSent={p.onAdded}
    />
  )
}
