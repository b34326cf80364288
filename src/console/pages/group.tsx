/**
 * /groups/{id}: the group's info (edit, not for viewers), its members, a chart of one data point of its members, its
 * command (sent now with its progress live, or scheduled), its desired state (a merge patch to every member, its task
 * followed; not for viewers) and its control log, re-read when one of the group's commands changes.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { GroupChart } from '../components/group-chart.tsx'
import { GroupCommand, gw } from '../components/group-command.tsx'
import { pw } from '../components/group-progress.tsx'
import { commandText } from '../components/command-words.ts'
import { GroupMembers } from '../components/group-members.tsx'
import { GroupState } from '../components/group-state.tsx'
import { RecordTitle } from '../components/history-link.tsx'
import { ErrorNote, PagedTable, usePagedList } from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'
import { GroupForm, grw, type Group } from './groups.tsx'
import type { GroupControlLogWire } from '../api/wire.ts'

type GroupLog = GroupControlLogWire

const lw = words(
  { controlLog: 'Control log', publishUser: 'By' },
  { controlLog: '控制日志', publishUser: '操作人' },
)

export function GroupPage({ id }: { id: number }) {
  const canWrite = session.value?.role !== 'viewer'
  const [group, setGroup] = useState<Group | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [version, setVersion] = useState(0)
  const [editing, setEditing] = useState(false)
  const changed = () => setVersion((v) => v + 1)
  useEffect(() => {
    api<Group>(`/groups/${id}`).then(
      (g) => (setGroup(g), setError(null)),
      (e: Error) => setError(e.message),
    )
  }, [id, version])

  if (!group)
    return (
      <section>
        <h1>{t().groups}</h1>
        {error ? <ErrorNote error={error} /> : <p>{t().loading}</p>}
      </section>
    )
  const w = grw()
  return (
    <section>
      <RecordTitle title={group.groupName} type="group" id={id} />
      <ErrorNote error={error} />
      <section class="card" aria-label={t().info}>
        <dl class="info">
          <dt>{t().product}</dt>
          <dd>{group.productName}</dd>
          <dt>{w.deviceCount}</dt>
          <dd>{group.deviceCount}</dd>
          <dt>{w.description}</dt>
          <dd>{group.description ?? ''}</dd>
          <dt>ID</dt>
          <dd class="mono">{group.groupID}</dd>
        </dl>
        {canWrite && !editing && (
          <button type="button" onClick={() => setEditing(true)}>
            {w.edit}
          </button>
        )}
      </section>
      {editing && (
        <GroupForm
          group={group}
          onDone={(saved) => {
            setEditing(false)
            if (saved) changed()
          }}
        />
      )}
      <GroupMembers groupIntID={id} canWrite={canWrite} onChange={changed} />
      <GroupChart groupIntID={id} productID={group.productID} />
      {canWrite && (
        <section class="card" aria-label={gw().groupCommand}>
          <h2>{gw().groupCommand}</h2>
          <GroupCommand
            groupIntID={id}
            groupID={group.groupID}
            deviceCount={group.deviceCount}
            onChange={changed}
          />
        </section>
      )}
      {canWrite && <GroupState groupIntID={id} />}
      <ControlLog groupIntID={id} version={version} />
    </section>
  )
}

function ControlLog({ groupIntID, version }: { groupIntID: number; version: number }) {
  const w = lw()
  const { page, setPage, pages, data, error } = usePagedList<GroupLog>(
    `/groups/${groupIntID}/control_logs`,
    { _sort: 'id', _order: 'desc' },
    0,
    version,
  )
  return (
    <section class="card" aria-label={w.controlLog}>
      <h2>{w.controlLog}</h2>
      <ErrorNote error={error} />
      <PagedTable
        label={w.controlLog}
        list={{ data, page, pages, setPage }}
        whileLoading={null}
        columns={[t().time, pw().task, t().payload, t().status, w.publishUser]}
        row={(l) => (
          <tr key={l.id}>
            <td>{l.createAt ?? '—'}</td>
            <td class="mono">{l.taskID ?? ''}</td>
            <td class="mono">{l.payload ?? ''}</td>
            <td>{commandText(l)}</td>
            <td>{l.publishUser ?? ''}</td>
          </tr>
        )}
      />
    </section>
  )
}
