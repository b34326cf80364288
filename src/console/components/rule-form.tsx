/**
 * The form of an alert rule (create or edit): every field the API takes, the API's refusal in role alert, and the
 * dry run of the rule as edited (rule-dry-run.tsx) once a product is picked.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { errorText } from './error-text.ts'
import { ErrorNote } from './paged-list.tsx'
import { DevicesPicker } from './devices-picker.tsx'
import { DryRun, type RuleBody } from './rule-dry-run.tsx'
import type { AlertRuleWire } from '../api/wire.ts'

/** An alert rule as GET /alert_rules answers it (the fields the console uses). */
export type Rule = AlertRuleWire

const w = words(
  {
    newRule: 'New rule',
    editRule: (n: string) => `Edit rule ${n}`,
    enabled: 'Enabled',
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
    devices: 'Only these devices',
    devicesHint: 'None chosen: every device of the product.',
    content: 'Alert content',
    contentHint: '{deviceName} and {value:<dataPointID>} are filled in',
    save: 'Save',
    cancel: 'Cancel',
    choose: 'Choose…',
  },
  {
    newRule: '新建规则',
    editRule: (n: string) => `编辑规则 ${n}`,
    enabled: '启用',
    ruleName: '规则名称',
    kind: '触发条件',
    kindCondition: '条件成立',
    kindNoData: '设备无数据',
    condition: '条件',
    conditionHint: '产品功能点 ID 的公式，例如 temp > 80 and hum < 20',
    forSeconds: '持续（秒）',
    clearCondition: '恢复条件',
    clearHint: '留空：not (条件)',
    clearForSeconds: '恢复持续（秒）',
    noDataSeconds: '无数据时长（秒）',
    devices: '仅这些设备',
    devicesHint: '不选：产品的全部设备。',
    content: '告警内容',
    contentHint: '可用 {deviceName} 和 {value:<功能点ID>}',
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
  deviceIntIDs: number[]
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
  deviceIntIDs: [],
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
  deviceIntIDs: [...(r.deviceIntIDs ?? [])],
  alertContent: r.alertContent ?? '',
  enable: r.enable === 1,
})

/** A number field as typed: a number when it reads as one, else the text (the API names what is wrong). */
const num = (s: string): number | string =>
  s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s

/** The body of create, edit and the dry run. */
const bodyOf = (d: Draft): RuleBody => {
  const ids = d.deviceIntIDs
  const cond = d.kind === 'condition'
  return {
    ruleName: d.ruleName,
    productID: d.productID,
    deviceIntIDs: ids.length ? ids : null,
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

/** A text field with a hint under it, the hint its accessible description. */
function HintedText(p: {
  id: string
  label: string
  hint: string
  value: string
  onInput: (e: Event) => void
  placeholder?: string
}) {
  return (
    <>
      <label>
        {p.label}
        <input
          value={p.value}
          onInput={p.onInput}
          placeholder={p.placeholder}
          aria-describedby={p.id}
        />
      </label>
      <small id={p.id}>{p.hint}</small>
    </>
  )
}

/** A setter of one draft field from its input's event. */
type SetField = <K extends keyof Draft>(k: K) => (e: Event) => void

/** When the rule fires: a condition (held for N s, cleared by another) or no data for N s. */
function FiringFields(p: { d: Draft; set: SetField; setKind: (k: Draft['kind']) => void }) {
  const { d, set, setKind } = p
  const ww = w()
  return (
    <>
      <fieldset>
        <legend>{ww.kind}</legend>
        {(['condition', 'noData'] as const).map((k) => (
          <label key={k} class="inline">
            <input
              type="radio"
              name="kind"
              value={k}
              checked={d.kind === k}
              onChange={() => setKind(k)}
            />{' '}
            {k === 'condition' ? ww.kindCondition : ww.kindNoData}
          </label>
        ))}
      </fieldset>
      {d.kind === 'condition' ? (
        <>
          <HintedText
            id="cond-hint"
            label={ww.condition}
            hint={ww.conditionHint}
            value={d.condition}
            onInput={set('condition')}
            placeholder="temp > 80"
          />
          <label>
            {ww.forSeconds}
            <input type="number" min={0} value={d.forSeconds} onInput={set('forSeconds')} />
          </label>
          <HintedText
            id="clear-hint"
            label={ww.clearCondition}
            hint={ww.clearHint}
            value={d.clearCondition}
            onInput={set('clearCondition')}
          />
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
    </>
  )
}

type ProductName = { productID: string; productName: string }

/** The tenant's products to choose from (a failed read goes to `onError`). */
function useProducts(onError: (e: string) => void) {
  const [products, setProducts] = useState<ProductName[]>([])
  useEffect(() => {
    api<{ items: ProductName[] }>('/products?_limit=1000').then(
      (r) => setProducts(r.items),
      (e) => onError(errorText(e)),
    )
  }, [])
  return products
}

/** The rule's product, "Choose…" until one is picked. */
function ProductField(p: { value: string; products: ProductName[]; onChange: (e: Event) => void }) {
  return (
    <label>
      {t().product}
      <select value={p.value} onChange={p.onChange} required>
        <option value="">{w().choose}</option>
        {p.products.map((x) => (
          <option key={x.productID} value={x.productID}>
            {x.productName}
          </option>
        ))}
      </select>
    </label>
  )
}

/** The alert's severity, 1 to 4. */
function SeverityField(p: { value: string; onChange: (e: Event) => void }) {
  const s = t()
  return (
    <label>
      {s.severityLabel}
      <select value={p.value} onChange={p.onChange}>
        {(['1', '2', '3', '4'] as const).map((k) => (
          <option key={k} value={k}>
            {s.severity[k]}
          </option>
        ))}
      </select>
    </label>
  )
}

export function RuleForm(p: { rule: Rule | null; onDone: (saved: boolean) => void }) {
  const [d, setD] = useState<Draft>(p.rule ? draftOf(p.rule) : EMPTY)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const products = useProducts(setError)
  const set: SetField = (k) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement
    setD((x) => ({ ...x, [k]: el.type === 'checkbox' ? el.checked : el.value }))
  }
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
        <ProductField value={d.productID} products={products} onChange={set('productID')} />
        <FiringFields d={d} set={set} setKind={(kind) => setD((x) => ({ ...x, kind }))} />
        <SeverityField value={d.alertSeverity} onChange={set('alertSeverity')} />
        <DevicesPicker
          label={ww.devices}
          hint={ww.devicesHint}
          productID={d.productID}
          value={d.deviceIntIDs}
          onChange={(deviceIntIDs) => setD((x) => ({ ...x, deviceIntIDs }))}
        />
        <HintedText
          id="content-hint"
          label={ww.content}
          hint={ww.contentHint}
          value={d.alertContent}
          onInput={set('alertContent')}
        />
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
