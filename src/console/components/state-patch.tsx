/**
 * What the desired-state views share (the device page's State region and editor, a group's form, the devices list's
 * marker, the console's switches): their words, the JSON merge patch typed in a textarea and checked before anything
 * is sent (not JSON, or not an object: refused here), a value shown as compact JSON and the "pending" badge.
 */
import { words } from '../i18n.ts'

export const stw = words(
  {
    state: 'State',
    stateTable: 'Desired and reported state',
    key: 'Key',
    desired: 'Desired',
    reported: 'Reported',
    delta: 'Delta',
    desiredAt: 'Desired changed',
    reportedAt: 'Reported changed',
    pending: 'pending',
    pendingState: 'Pending state',
    inSync: 'In desired state',
    pendingKeys: (n: number) => `${n} ${n === 1 ? 'key' : 'keys'} pending`,
    version: 'Version',
    desiredVersion: 'Desired version',
    reportedVersion: 'Reported version',
    noState: 'No state yet.',
    edit: 'Edit desired state',
    patchLabel: 'Desired state (JSON merge patch)',
    patchHint:
      'A JSON object: keys left out keep their value, null deletes a key, objects merge, arrays replace.',
    notJson: (why: string) => `Not JSON: ${why}`,
    notObject: 'The desired state must be a JSON object ({…}); nothing was sent.',
    save: 'Save',
    cancel: 'Cancel',
    conflict: (from: number, to: number) =>
      `The desired state changed meanwhile (desired version ${from} → ${to}). Your text is kept: compare it with ` +
      'the current desired state, then Save again to apply it over that version.',
    changedKeys: 'Changed meanwhile',
    currentDesired: (v: number) => `Current desired state (desired version ${v})`,
    setDesired: 'Set desired state',
    taskStatus: 'Desired state task status',
    taskProgress: 'Desired state task progress',
    taskState: (status: number) =>
      ['', 'waiting', 'running', 'done', 'failed'][status] ?? `${status}`,
    total: 'Total',
    changed: 'Changed',
    unchanged: 'Unchanged',
    failed: 'Failed',
    on: 'on',
    off: 'off',
  },
  {
    state: '设备状态',
    stateTable: '期望状态与上报状态',
    key: '键',
    desired: '期望值',
    reported: '上报值',
    delta: '差异',
    desiredAt: '期望更新时间',
    reportedAt: '上报更新时间',
    pending: '待同步',
    pendingState: '状态待同步',
    inSync: '已达到期望状态',
    pendingKeys: (n: number) => `${n} 项待同步`,
    version: '版本',
    desiredVersion: '期望版本',
    reportedVersion: '上报版本',
    noState: '暂无状态。',
    edit: '编辑期望状态',
    patchLabel: '期望状态（JSON 合并补丁）',
    patchHint: 'JSON 对象：未写出的键保持原值，null 删除该键，对象逐键合并，数组整体替换。',
    notJson: (why: string) => `不是合法的 JSON：${why}`,
    notObject: '期望状态必须是 JSON 对象（{…}），未发送。',
    save: '保存',
    cancel: '取消',
    conflict: (from: number, to: number) =>
      `期望状态已被修改（期望版本 ${from} → ${to}）。已保留您输入的内容：请与当前期望状态比较，再次保存即在该版本上应用。`,
    changedKeys: '期间变更的键',
    currentDesired: (v: number) => `当前期望状态（期望版本 ${v}）`,
    setDesired: '设置期望状态',
    taskStatus: '期望状态任务状态',
    taskProgress: '期望状态任务进度',
    taskState: (status: number) =>
      ['', '等待中', '执行中', '已完成', '失败'][status] ?? `${status}`,
    total: '合计',
    changed: '已变更',
    unchanged: '未变更',
    failed: '失败',
    on: '开',
    off: '关',
  },
)

/** A JSON object as the API's sides hold it. */
export type JsonObject = Record<string, unknown>

/** Whether `o` holds `key` itself (not through its prototype: `toString` is not a state key). */
export const hasKey = (o: JsonObject, key: string) => Object.prototype.hasOwnProperty.call(o, key)

/** A value as compact JSON; a missing one as a dash. */
export const jsonText = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v))

/** The typed text as a merge patch, or why it is not one (not JSON, or JSON but not an object). */
export function parsePatch(text: string): { patch: JsonObject } | { error: string } {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (e) {
    return { error: stw().notJson(e instanceof Error ? e.message : String(e)) }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? { patch: v as JsonObject }
    : { error: stw().notObject }
}

/**
 * A form's submit of the typed patch: stops the browser's submit, then the patch, or null with why it is not one
 * given to `setError` (a valid one clears the error).
 */
export function submittedPatch(
  ev: Event,
  text: string,
  setError: (e: string | null) => void,
): JsonObject | null {
  ev.preventDefault()
  const parsed = parsePatch(text)
  setError('error' in parsed ? parsed.error : null)
  return 'patch' in parsed ? parsed.patch : null
}

/** The patch's textarea, labelled, with how a merge patch reads under it (its description). */
export function PatchField(p: { value: string; onInput: (v: string) => void; rows?: number }) {
  const s = stw()
  return (
    <div class="patch-field">
      <label>
        {s.patchLabel}
        <textarea
          class="mono"
          rows={p.rows ?? 6}
          spellcheck={false}
          aria-describedby="patch-hint"
          value={p.value}
          onInput={(e) => p.onInput(e.currentTarget.value)}
        />
      </label>
      <small id="patch-hint" class="muted">
        {s.patchHint}
      </small>
    </div>
  )
}

/** The "pending" badge of a key (or a device) not yet in its desired state. */
export const PendingBadge = ({ text }: { text?: string }) => (
  <span class="badge pending">{text ?? stw().pending}</span>
)
