/**
 * /alert_rules: the tenant's alert rules (server paged, searched by name) with create, edit, enable/disable and
 * delete for the roles that may write, and the dry run of the rule being edited drawn over a device's data.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api.ts'
import { errorText } from '../components/error-text.ts'
import { ErrorNote, Pager, SearchBox, usePagedList } from '../components/paged-list.tsx'
import { DryRun, type RuleBody } from '../components/rule-dry-run.tsx'
import { t, words } from '../i18n.ts'

/** An alert rule as GET /alert_rules answers it (the fields the console uses). */
export interface Rule {
  id: number
  ruleName: string
  productID: string
  productName: string | null
  deviceIntIDs: number[] | null
  condition: string | null
  alertSeverity: number
  alertSeverityLabel: string | null
  forSeconds: number
  clearCondition: string | null
  clearForSeconds: number
  noDataSeconds: number | null
  alertContent: string | null
  enable: number
}

export const w = words(
  {
    search: 'Search rules',
    table: 'Alert rules',
    newRule: 'New rule',
    edit: 'Edit',
    editRule: (n: string) => `Edit rule ${n}`,
    enabled: 'Enabled',
    enable: 'Enable',
    disable: 'Disable',
    delete: 'Delete',
    confirmDelete: (n: string) => `Delete the rule ${n}? Its open alerts move to the history.`,
    ruleName: 'Rule name',
    kind: 'Raise when',
    kindCondition: 'a condition holds',
    kindNoData: 'a device sends nothing',
    condition: 'Condition',
    conditionHint: 'A formula over the product’s data point ids, e.g. temp > 80 and hum < 20',
    forSeconds: 'For (seconds)',
    clearCondition: 'Clear condition',
    clearHint: 'Empty: not (condition)',
    clearForSeconds: 'Clear for (seconds)',
    noDataSeconds: 'No data for (seconds)',
    devices: 'Only devices (record ids, comma separated)',
    devicesHint: 'Empty: every device of the product',
    content: 'Alert content',
    contentHint: '{deviceName} and {value:<dataPointID>} are filled in',
    save: 'Save',
    cancel: 'Cancel',
    choose: 'Choose…',
  },
  {
    search: '搜索规则',
    table: '告警规则',
    newRule: '新建规则',
    edit: '编辑',
    editRule: (n: string) => `编辑规则 ${n}`,
    enabled: '启用',
    enable: '启用',
    disable: '停用',
    delete: '删除',
    confirmDelete: (n: string) => `删除规则 ${n}？其当前告警将移入历史。`,
    ruleName: '规则名称',
    kind: '触发条件',
    kindCondition: '条件成立',
    kindNoData: '设备无数据',
    condition: '条件',
    conditionHint: '产品数据点 ID 的公式，例如 temp > 80 and hum < 20',
    forSeconds: '持续（秒）',
    clearCondition: '恢复条件',
    clearHint: '留空：not (条件)',
    clearForSeconds: '恢复持续（秒）',
    noDataSeconds: '无数据时长（秒）',
    devices: '仅这些设备（记录 ID，逗号分隔）',
    devicesHint: '留空：产品的全部设备',
    content: '告警内容',
    contentHint: '可用 {deviceName} 和 {value:<数据点ID>}',
    save: '保存',
    cancel: '取消',
    choose: '请选择…',
  },
)

/** The form's fields, as typed. */
interface Draft {
  ruleName: string
  productID: string
  kind: 'condition' | 'noData'
  condition: string
  forSeconds: string
  clearCondition: string
  clearForSeconds: string
  noDataSeconds: string
  alertSeverity: string
  deviceIntIDs: string
  alertContent: string
  enable: boolean
}

const EMPTY: Draft = {
  ruleName: '',
  productID: '',
  kind: 'condition',
  condition: '',
  forSeconds: '0',
  clearCondition: '',
  clearForSeconds: '0',
  noDataSeconds: '300',
  alertSeverity: '2',
  deviceIntIDs: '',
  alertContent: '',
  enable: true,
}

const draftOf = (r: Rule): Draft => ({
  ruleName: r.ruleName,
  productID: r.productID,
  kind: r.condition ? 'condition' : 'noData',
  condition: r.condition ?? '',
  forSeconds: String(r.forSeconds),
  clearCondition: r.clearCondition ?? '',
  clearForSeconds: String(r.clearForSeconds),
  noDataSeconds: String(r.noDataSeconds ?? 300),
  alertSeverity: String(r.alertSeverity),
  deviceIntIDs: (r.deviceIntIDs ?? []).join(', '),
  alertContent: r.alertContent ?? '',
  enable: r.enable === 1,
})

/** A number field as typed: a number when it reads as one, else the text (the API names what is wrong). */
const num = (s: string): number | string =>
  s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s

/** The body of create, edit and the dry run. */
const bodyOf = (d: Draft): RuleBody => {
  const ids = d.deviceIntIDs
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const cond = d.kind === 'condition'
  return {
    ruleName: d.ruleName,
    productID: d.productID,
    deviceIntIDs: ids.length ? ids.map(num) : null,
    condition: cond ? d.condition : null,
    forSeconds: cond ? num(d.forSeconds) : 0,
    clearCondition: cond && d.clearCondition.trim() ? d.clearCondition : null,
    clearForSeconds: cond ? num(d.clearForSeconds) : 0,
    noDataSeconds: cond ? null : num(d.noDataSeconds),
    alertSeverity: Number(d.alertSeverity),
    alertContent: d.alertContent || null,
    enable: d.enable ? 1 : 0,
  }
}

function RuleForm(p: { rule: Rule | null; onDone: (saved: boolean) => void }) {
  const [d, setD] = useState<Draft>(p.rule ? draftOf(p.rule) : EMPTY)
  const [products, setProducts] = useState<Array<{ productID: string; productName: string }>>([])
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    api<{ items: Array<{ productID: string; productName: string }> }>('/products?_limit=1000').then(
      (r) => setProducts(r.items),
      (e) => setError(errorText(e)),
    )
  }, [])
  const set =
    <K extends keyof Draft>(k: K) =>
    (e: Event) => {
      const el = e.currentTarget as HTMLInputElement
      setD((x) => ({ ...x, [k]: el.type === 'checkbox' ? el.checked : el.value }))
    }
  const s = t()
  const ww = w()
  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    try {
      if (p.rule) await api(`/alert_rules/${p.rule.id}`, { method: 'PUT', body: bodyOf(d) })
      else await api('/alert_rules', { method: 'POST', body: bodyOf(d) })
      p.onDone(true)
    } catch (err) {
      setError(errorText(err))
    } finally {
      setBusy(false)
    }
  }
  const title = p.rule ? ww.editRule(p.rule.ruleName) : ww.newRule
  return (
    <section class="card rule-form" aria-labelledby="rule-form-h">
      <h2 id="rule-form-h">{title}</h2>
      <form onSubmit={save}>
        <label>
          {ww.ruleName}
          <input value={d.ruleName} onInput={set('ruleName')} required maxLength={50} />
        </label>
        <label>
          {s.product}
          <select value={d.productID} onChange={set('productID')} required>
            <option value="">{ww.choose}</option>
            {products.map((x) => (
              <option key={x.productID} value={x.productID}>
                {x.productName}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>{ww.kind}</legend>
          {(['condition', 'noData'] as const).map((k) => (
            <label key={k} class="inline">
              <input
                type="radio"
                name="kind"
                value={k}
                checked={d.kind === k}
                onChange={() => setD((x) => ({ ...x, kind: k }))}
              />{' '}
              {k === 'condition' ? ww.kindCondition : ww.kindNoData}
            </label>
          ))}
        </fieldset>
        {d.kind === 'condition' ? (
          <>
            <label>
              {ww.condition}
              <input
                value={d.condition}
                onInput={set('condition')}
                placeholder="temp > 80"
                aria-describedby="cond-hint"
              />
            </label>
            <small id="cond-hint">{ww.conditionHint}</small>
            <label>
              {ww.forSeconds}
              <input type="number" min={0} value={d.forSeconds} onInput={set('forSeconds')} />
            </label>
            <label>
              {ww.clearCondition}
              <input
                value={d.clearCondition}
                onInput={set('clearCondition')}
                aria-describedby="clear-hint"
              />
            </label>
            <small id="clear-hint">{ww.clearHint}</small>
            <label>
              {ww.clearForSeconds}
              <input
                type="number"
                min={0}
                value={d.clearForSeconds}
                onInput={set('clearForSeconds')}
              />
            </label>
          </>
        ) : (
          <label>
            {ww.noDataSeconds}
            <input type="number" min={1} value={d.noDataSeconds} onInput={set('noDataSeconds')} />
          </label>
        )}
        <label>
          {s.severityLabel}
          <select value={d.alertSeverity} onChange={set('alertSeverity')}>
            {(['1', '2', '3', '4'] as const).map((k) => (
              <option key={k} value={k}>
                {s.severity[k]}
              </option>
            ))}
          </select>
        </label>
        <label>
          {ww.devices}
          <input value={d.deviceIntIDs} onInput={set('deviceIntIDs')} aria-describedby="dev-hint" />
        </label>
        <small id="dev-hint">{ww.devicesHint}</small>
        <label>
          {ww.content}
          <input
            value={d.alertContent}
            onInput={set('alertContent')}
            aria-describedby="content-hint"
          />
        </label>
        <small id="content-hint">{ww.contentHint}</small>
        <label class="inline">
          <input type="checkbox" checked={d.enable} onChange={set('enable')} /> {ww.enabled}
        </label>
        <ErrorNote error={error} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            {ww.save}
          </button>{' '}
          <button type="button" class="secondary" onClick={() => p.onDone(false)}>
            {ww.cancel}
          </button>
        </div>
      </form>
      {d.productID && <DryRun rule={bodyOf(d)} />}
    </section>
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
      {!data ? (
        <p>{s.loading}</p>
      ) : (
        <>
          <table aria-label={ww.table}>
            <thead>
              <tr>
                <th scope="col">{s.name}</th>
                <th scope="col">{s.product}</th>
                <th scope="col">{s.severityLabel}</th>
                <th scope="col">{ww.enabled}</th>
                {canWrite && <th scope="col">{s.actions}</th>}
              </tr>
            </thead>
            <tbody>
              {data.items.map((r) => (
                <tr key={r.id}>
                  <td>{r.ruleName}</td>
                  <td>{r.productName ?? r.productID}</td>
                  <td>
                    <span class={`sev sev${r.alertSeverity}`}>
                      {s.severity[String(r.alertSeverity) as '1'] ?? r.alertSeverityLabel}
                    </span>
                  </td>
                  <td>
                    <span class={r.enable ? 'badge on' : 'badge off'}>
                      {r.enable ? s.yes : s.no}
                    </span>
                  </td>
                  {canWrite && (
                    <td class="actions">
                      <button
                        type="button"
                        aria-label={`${ww.edit} ${r.ruleName}`}
                        onClick={() => setEditing(r)}
                      >
                        {ww.edit}
                      </button>{' '}
                      <button
                        type="button"
                        aria-label={`${r.enable ? ww.disable : ww.enable} ${r.ruleName}`}
                        onClick={() =>
                          act(
                            api(`/alert_rules/${r.id}`, {
                              method: 'PUT',
                              body: { enable: r.enable ? 0 : 1 },
                            }),
                          )
                        }
                      >
                        {r.enable ? ww.disable : ww.enable}
                      </button>{' '}
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`${ww.delete} ${r.ruleName}`}
                        onClick={() =>
                          window.confirm(ww.confirmDelete(r.ruleName)) &&
                          act(api(`/alert_rules?ids=${r.id}`, { method: 'DELETE' }))
                        }
                      >
                        {ww.delete}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {data.items.length === 0 && <p>{s.none}</p>}
          <Pager page={page} pages={pages} count={data.meta.count} onPage={setPage} />
        </>
      )}
    </section>
  )
}
