/**
 * /alert_rules: the tenant's alert rules (server paged, searched by name) with create, edit (rule-form.tsx, with
 * the dry run), enable/disable and delete for the roles that may write.
 */
import { useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { errorText } from '../components/error-text.ts'
import {
  ErrorNote,
  PagedTable,
  RowButton,
  SearchBox,
  usePagedList,
} from '../components/paged-list.tsx'
import { RuleForm, type Rule } from '../components/rule-form.tsx'
import { t, words } from '../i18n.ts'

const w = words(
  {
    search: 'Search rules',
    table: 'Alert rules',
    newRule: 'New rule',
    edit: 'Edit',
    enabled: 'Enabled',
    enable: 'Enable',
    disable: 'Disable',
    delete: 'Delete',
    confirmDelete: (n: string) => `Delete the rule ${n}? Its open alerts move to the history.`,
  },
  {
    search: '搜索规则',
    table: '告警规则',
    newRule: '新建规则',
    edit: '编辑',
    enabled: '启用',
    enable: '启用',
    disable: '停用',
    delete: '删除',
    confirmDelete: (n: string) => `删除规则 ${n}？其当前告警将移入历史。`,
  },
)

/** A rule's row; edit, enable/disable and delete when `onEdit` is given (the roles that may write). */
function RuleRow(p: {
  r: Rule
  onEdit?: (r: Rule) => void
  act: (p: Promise<unknown>) => unknown
}) {
  const { r, onEdit, act } = p
  const s = t()
  const ww = w()
  return (
    <tr>
      <td>{r.ruleName}</td>
      <td>{r.productName ?? r.productID}</td>
      <td>
        <span class={`sev sev${r.alertSeverity}`}>
          {s.severity[String(r.alertSeverity) as '1'] ?? r.alertSeverityLabel}
        </span>
      </td>
      <td>
        <span class={r.enable ? 'badge on' : 'badge off'}>{r.enable ? s.yes : s.no}</span>
      </td>
      {onEdit && (
        <td class="actions">
          <RowButton label={ww.edit} name={r.ruleName} onClick={() => onEdit(r)} />{' '}
          <RowButton
            label={r.enable ? ww.disable : ww.enable}
            name={r.ruleName}
            onClick={() =>
              act(
                api(`/alert_rules/${r.id}`, {
                  method: 'PUT',
                  body: { enable: r.enable ? 0 : 1 },
                }),
              )
            }
          />{' '}
          <RowButton
            secondary
            label={ww.delete}
            name={r.ruleName}
            onClick={() =>
              window.confirm(ww.confirmDelete(r.ruleName)) &&
              act(api(`/alert_rules?ids=${r.id}`, { method: 'DELETE' }))
            }
          />
        </td>
      )}
    </tr>
  )
}

export function AlertRulesPage() {
  const canWrite = session.value?.role !== 'viewer'
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  // the form: closed, a new rule, or the rule being edited
  const [editing, setEditing] = useState<Rule | 'new' | null>(null)
  const { page, setPage, pages, data, error, setError } = usePagedList<Rule>(
    '/alert_rules',
    { ruleName_like: search },
    search ? 200 : 0,
    version,
  )
  const reread = () => setVersion((v) => v + 1)
  const act = (p: Promise<unknown>) => p.then(reread, (e) => setError(errorText(e)))
  const s = t()
  const ww = w()
  return (
    <section>
      <h1>{s.alertRules}</h1>
      <div class="toolbar">
        <SearchBox
          label={ww.search}
          value={search}
          onSearch={(v) => {
            setSearch(v)
            setPage(1)
          }}
        />
        {canWrite && (
          <button type="button" onClick={() => setEditing('new')}>
            {ww.newRule}
          </button>
        )}
      </div>
      {canWrite && editing && (
        <RuleForm
          key={editing === 'new' ? 'new' : editing.id}
          rule={editing === 'new' ? null : editing}
          onDone={(saved) => {
            setEditing(null)
            if (saved) reread()
          }}
        />
      )}
      <ErrorNote error={error} />
      <PagedTable
        label={ww.table}
        list={{ data, page, pages, setPage }}
        columns={[s.name, s.product, s.severityLabel, ww.enabled, canWrite && s.actions]}
        row={(r) => (
          <RuleRow key={r.id} r={r} onEdit={canWrite ? setEditing : undefined} act={act} />
        )}
      />
    </section>
  )
}
