/**
 * /schedules: device schedules and group schedules, each a server-paged table with its target, kind, timing,
 * payload, enabled and next run; edit, enable / disable and delete for the roles that may write.
 */
import { useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { payloadOf } from '../components/command-composer.tsx'
import {
  ErrorNote,
  PagedTable,
  RowButton,
  SearchBox,
  usePagedList,
} from '../components/paged-list.tsx'
import {
  sw,
  timingBody,
  timingOf,
  timingText,
  WhenFields,
  type Schedule,
} from '../components/schedule-fields.tsx'
import { t, words } from '../i18n.ts'
import { errorText } from '../components/error-text.ts'

type Kind = 'device' | 'group'

const w = words(
  {
    deviceSchedules: 'Device schedules',
    groupSchedules: 'Group schedules',
    searchSchedules: (k: string) => `Search ${k.toLowerCase()}`,
    target: 'Target',
    kind: 'Kind',
    timing: 'Timing',
    enabled: 'Enabled',
    lastRun: 'Last run',
    edit: 'Edit',
    enable: 'Enable',
    disable: 'Disable',
    delete: 'Delete',
    save: 'Save',
    cancel: 'Cancel',
    editSchedule: 'Edit schedule',
    confirmDelete: (name: string) => `Delete schedule “${name}”?`,
  },
  {
    deviceSchedules: '设备定时任务',
    groupSchedules: '分组定时任务',
    searchSchedules: (k: string) => `搜索${k}`,
    target: '对象',
    kind: '类型',
    timing: '时间',
    enabled: '启用',
    lastRun: '上次执行',
    edit: '编辑',
    enable: '启用',
    disable: '停用',
    delete: '删除',
    save: '保存',
    cancel: '取消',
    editSchedule: '编辑定时任务',
    confirmDelete: (name: string) => `删除定时任务“${name}”？`,
  },
)

/** Edits a schedule's name, timing and payload (PUT; the other fields keep their values). */
function ScheduleEditor(p: { kind: Kind; schedule: Schedule; onDone: (saved: boolean) => void }) {
  const [name, setName] = useState(p.schedule.scheduleName)
  const [timing, setTiming] = useState(timingOf(p.schedule))
  const [payload, setPayload] = useState(p.schedule.payload)
  const [error, setError] = useState<string | null>(null)
  const save = async (ev: Event) => {
    ev.preventDefault()
    setError(null)
    const body = { scheduleName: name.trim(), payload: payloadOf(payload), ...timingBody(timing) }
    try {
      await api(`/${p.kind}_schedule_publish/${p.schedule.id}`, { method: 'PUT', body })
      p.onDone(true)
    } catch (e) {
      setError(errorText(e))
    }
  }
  const value = (set: (v: string) => void) => (e: Event) =>
    set((e.currentTarget as HTMLInputElement).value)
  return (
    <form class="card composer" aria-label={w().editSchedule} onSubmit={save}>
      <label>
        {t().payload}
        <textarea rows={2} required value={payload} onInput={value(setPayload)} />
      </label>
      <label>
        {sw().scheduleName}
        <input required maxLength={50} value={name} onInput={value(setName)} />
      </label>
      <WhenFields value={timing} onChange={setTiming} now={false} />
      <button type="submit">{w().save}</button>
      <button type="button" class="secondary" onClick={() => p.onDone(false)}>
        {w().cancel}
      </button>
      <ErrorNote error={error} />
    </form>
  )
}

/** A schedule's row; edit, enable / disable and delete for the roles that may write. */
function ScheduleRow(p: {
  x: Schedule
  canWrite: boolean
  onEdit: (x: Schedule) => void
  onToggle: (x: Schedule) => unknown
  onRemove: (x: Schedule) => void
}) {
  const { x } = p
  const s = w()
  return (
    <tr>
      <td>{x.scheduleName}</td>
      <td class="mono">{x.deviceID ?? x.groupID}</td>
      <td>{sw().kinds[x.scheduleType] ?? x.scheduleTypeLabel}</td>
      <td class="mono">{timingText(x)}</td>
      <td class="mono">{x.payload}</td>
      <td>{x.enable ? t().yes : t().no}</td>
      <td>{x.nextRunAt ?? '—'}</td>
      <td>{x.lastRunAt ?? '—'}</td>
      {p.canWrite && (
        <td class="actions">
          <RowButton label={s.edit} name={x.scheduleName} onClick={() => p.onEdit(x)} />{' '}
          <RowButton
            label={x.enable ? s.disable : s.enable}
            name={x.scheduleName}
            onClick={() => p.onToggle(x)}
          />{' '}
          <RowButton
            secondary
            label={s.delete}
            name={x.scheduleName}
            onClick={() => p.onRemove(x)}
          />
        </td>
      )}
    </tr>
  )
}

/** Deleting (once confirmed) and enabling / disabling a schedule of `kind`; then `reread`, or the error. */
function scheduleActions(kind: Kind, reread: () => void, setError: (e: string | null) => void) {
  const act = (p: Promise<unknown>) =>
    p.then(
      () => (setError(null), reread()),
      (e: unknown) => setError(errorText(e)),
    )
  const remove = (x: Schedule) => {
    if (window.confirm(w().confirmDelete(x.scheduleName)))
      void act(api(`/${kind}_schedule_publish?ids=${x.id}`, { method: 'DELETE' }))
  }
  const toggle = (x: Schedule) =>
    act(
      api(`/${kind}_schedule_publish/${x.id}`, {
        method: 'PUT',
        body: { enable: x.enable ? 0 : 1 },
      }),
    )
  return { remove, toggle }
}

function ScheduleTable({ kind, canWrite }: { kind: Kind; canWrite: boolean }) {
  const s = w()
  const title = kind === 'device' ? s.deviceSchedules : s.groupSchedules
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  const [editing, setEditing] = useState<Schedule | null>(null)
  const reread = () => setVersion((v) => v + 1)
  const { page, setPage, pages, data, error, setError } = usePagedList<Schedule>(
    `/${kind}_schedule_publish`,
    { scheduleName_like: search, _sort: 'id', _order: 'desc' },
    search ? 200 : 0,
    version,
  )
  const { remove, toggle } = scheduleActions(kind, reread, setError)
  return (
    <section aria-label={title} class="card">
      <h2>{title}</h2>
      <div class="toolbar">
        <SearchBox
          label={s.searchSchedules(title)}
          value={search}
          onSearch={(v) => {
            setSearch(v)
            setPage(1)
          }}
        />
      </div>
      {editing && (
        <ScheduleEditor
          key={editing.id}
          kind={kind}
          schedule={editing}
          onDone={(saved) => {
            setEditing(null)
            if (saved) reread()
          }}
        />
      )}
      <ErrorNote error={error} />
      <PagedTable
        label={title}
        list={{ data, page, pages, setPage }}
        whileLoading={null}
        columns={[
          t().name,
          s.target,
          s.kind,
          s.timing,
          t().payload,
          s.enabled,
          sw().nextRun,
          s.lastRun,
          canWrite && t().actions,
        ]}
        row={(x) => (
          <ScheduleRow
            key={x.id}
            x={x}
            canWrite={canWrite}
            onEdit={setEditing}
            onToggle={toggle}
            onRemove={remove}
          />
        )}
      />
    </section>
  )
}

export function SchedulesPage() {
  const canWrite = session.value?.role !== 'viewer'
  return (
    <section>
      <h1>{t().schedules}</h1>
      <ScheduleTable kind="device" canWrite={canWrite} />
      <ScheduleTable kind="group" canWrite={canWrite} />
    </section>
  )
}
