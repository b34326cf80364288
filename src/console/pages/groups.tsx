/** /groups: the tenant's groups, paged by the server and searched by name; create, edit and delete (not viewers). */
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import {
  ErrorNote,
  PagedTable,
  RowButton,
  SearchBox,
  usePagedList,
} from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'
import { errorText } from '../components/error-text.ts'
import type { GroupItemWire } from '../api/wire.ts'

/** A group as the list and the detail answer it. */
export type Group = GroupItemWire

export const grw = words(
  {
    searchGroups: 'Search groups',
    newGroup: 'New group',
    groupForm: 'Group',
    groupName: 'Group name',
    description: 'Description',
    deviceCount: 'Devices',
    save: 'Save',
    cancel: 'Cancel',
    edit: 'Edit',
    delete: 'Delete',
    confirmDelete: (name: string) => `Delete group “${name}”?`,
  },
  {
    searchGroups: '搜索分组',
    newGroup: '新建分组',
    groupForm: '分组',
    groupName: '分组名称',
    description: '描述',
    deviceCount: '设备数',
    save: '保存',
    cancel: '取消',
    edit: '编辑',
    delete: '删除',
    confirmDelete: (name: string) => `删除分组“${name}”？`,
  },
)

/** Create (no `group`) or edit a group: product, name and description. */
export function GroupForm(p: { group?: Group; onDone: (saved: boolean) => void }) {
  const w = grw()
  const [products, setProducts] = useState<Array<{ productID: string; productName: string }>>([])
  const [productID, setProductID] = useState(p.group?.productID ?? '')
  const [groupName, setGroupName] = useState(p.group?.groupName ?? '')
  const [description, setDescription] = useState(p.group?.description ?? '')
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    api<{ items: Array<{ productID: string; productName: string }> }>(
      '/products?_limit=1000&_sort=productName',
    ).then(
      (d) => {
        setProducts(d.items)
        if (!p.group && d.items[0]) setProductID((v) => v || d.items[0]!.productID)
      },
      (e: Error) => setError(e.message),
    )
  }, [])
  const save = async (ev: Event) => {
    ev.preventDefault()
    setError(null)
    const body = { productID, groupName: groupName.trim(), description: description.trim() }
    try {
      if (p.group) await api(`/groups/${p.group.id}`, { method: 'PUT', body })
      else await api('/groups', { method: 'POST', body })
      p.onDone(true)
    } catch (e) {
      setError(errorText(e))
    }
  }
  const value = (set: (v: string) => void) => (e: Event) =>
    set((e.currentTarget as HTMLInputElement).value)
  return (
    <form class="card composer" aria-label={w.groupForm} onSubmit={save}>
      <label>
        {t().product}
        <select required value={productID} onChange={value(setProductID)}>
          {products.map((x) => (
            <option key={x.productID} value={x.productID}>
              {x.productName}
            </option>
          ))}
        </select>
      </label>
      <label>
        {w.groupName}
        <input required maxLength={50} value={groupName} onInput={value(setGroupName)} />
      </label>
      <label>
        {w.description}
        <input maxLength={300} value={description} onInput={value(setDescription)} />
      </label>
      <button type="submit">{w.save}</button>
      <button type="button" class="secondary" onClick={() => p.onDone(false)}>
        {w.cancel}
      </button>
      <ErrorNote error={error} />
    </form>
  )
}

/** A group's row; edit and delete for the roles that may write. */
function GroupRow(p: {
  g: Group
  canWrite: boolean
  onEdit: (g: Group) => void
  onRemove: (g: Group) => void
}) {
  const { g } = p
  const w = grw()
  return (
    <tr>
      <td>
        <a href={`/groups/${g.id}`}>{g.groupName}</a>
      </td>
      <td>{g.productName}</td>
      <td>{g.deviceCount}</td>
      <td>{g.description ?? ''}</td>
      <td>{g.createAt ?? '—'}</td>
      {p.canWrite && (
        <td class="actions">
          <RowButton label={w.edit} name={g.groupName} onClick={() => p.onEdit(g)} />{' '}
          <RowButton secondary label={w.delete} name={g.groupName} onClick={() => p.onRemove(g)} />
        </td>
      )}
    </tr>
  )
}

export function GroupsPage() {
  const w = grw()
  const canWrite = session.value?.role !== 'viewer'
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  const [editing, setEditing] = useState<Group | 'new' | null>(null)
  const { page, setPage, pages, data, error, setError } = usePagedList<Group>(
    '/groups',
    { groupName_like: search },
    search ? 200 : 0,
    version,
  )
  const remove = async (g: Group) => {
    if (!window.confirm(w.confirmDelete(g.groupName))) return
    try {
      await api(`/groups?ids=${g.id}`, { method: 'DELETE' })
      setVersion((v) => v + 1)
    } catch (e) {
      setError(errorText(e))
    }
  }
  return (
    <section>
      <h1>{t().groups}</h1>
      <div class="toolbar">
        <SearchBox
          label={w.searchGroups}
          value={search}
          onSearch={(v) => {
            setSearch(v)
            setPage(1)
          }}
        />{' '}
        {canWrite && !editing && (
          <button type="button" onClick={() => setEditing('new')}>
            {w.newGroup}
          </button>
        )}
      </div>
      {editing && (
        <GroupForm
          key={editing === 'new' ? 'new' : editing.id}
          group={editing === 'new' ? undefined : editing}
          onDone={(saved) => {
            setEditing(null)
            if (saved) setVersion((v) => v + 1)
          }}
        />
      )}
      <ErrorNote error={error} />
      <PagedTable
        label={t().groups}
        list={{ data, page, pages, setPage }}
        columns={[
          t().name,
          t().product,
          w.deviceCount,
          w.description,
          t().created,
          canWrite && t().actions,
        ]}
        row={(g) => (
          <GroupRow
            key={g.id}
            g={g}
            canWrite={canWrite}
            onEdit={setEditing}
            onRemove={(x) => void remove(x)}
          />
        )}
      />
    </section>
  )
}
