/**
 * /applications (admins): the tenant's applications (API keys: name, App ID, role, expiry, created), searched by
 * name; New application (name, role, an optional expiry) whose secret (`appToken`) the dialog then shows once,
 * with Copy and a warning that it will not be shown again; Revoke (delete, asked first).
 */
import { useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import type { ApplicationCreatedWire, ApplicationWire } from '../api/wire.ts'
import { AdminOnly } from '../components/admin-only.tsx'
import { codeLabel, ROLES } from '../components/admin-words.ts'
import { CopyText } from '../components/copy-text.tsx'
import { useModal } from '../components/dialog.tsx'
import { useSubmit } from '../components/field-errors.tsx'
import { DialogForm, InputField, SelectField } from '../components/form-field.tsx'
import {
  ErrorNote,
  PagedTable,
  RowButton,
  SearchBox,
  useSearchList,
} from '../components/paged-list.tsx'
import { wireTime } from '../components/schedule-fields.tsx'
import { t, words } from '../i18n.ts'

type App = ApplicationWire

const w = words(
  {
    table: 'Applications',
    searchApps: 'Search applications',
    newApp: 'New application',
    appName: 'Name',
    appID: 'App ID',
    role: 'Role',
    expires: 'Expires',
    expiresField: 'Expires (optional, service time zone)',
    never: 'Never',
    create: 'Create',
    cancel: 'Cancel',
    revoke: 'Revoke',
    confirmRevoke: (name: string) =>
      `Revoke the application ${name}? Calls with its key are refused from now on.`,
    keyOf: (name: string) => `Key of ${name}`,
    secret: 'Secret (appToken)',
    onceWarning:
      'Copy the secret now: it will not be shown again. Calls send it with HTTP Basic authentication, the App ID as the user name and the secret as the password.',
    done: 'Done',
  },
  {
    table: '应用',
    searchApps: '搜索应用',
    newApp: '新建应用',
    appName: '名称',
    appID: 'App ID',
    role: '角色',
    expires: '过期时间',
    expiresField: '过期时间（可选，服务时区）',
    never: '永不过期',
    create: '创建',
    cancel: '取消',
    revoke: '吊销',
    confirmRevoke: (name: string) => `吊销应用 ${name}？此后使用其密钥的调用都将被拒绝。`,
    keyOf: (name: string) => `${name} 的密钥`,
    secret: '密钥（appToken）',
    onceWarning:
      '请立即复制密钥：它不会再次显示。调用时使用 HTTP Basic 认证，用户名为 App ID，密码为该密钥。',
    done: '完成',
  },
)

const FORM = 'app-form'

/** The new application's App ID and secret, shown once. */
function SecretShown({ app, onDone }: { app: ApplicationCreatedWire; onDone: () => void }) {
  const ww = w()
  return (
    <div class="fw-form">
      <h2 id="app-form-title" class="wide">
        {ww.keyOf(app.appName)}
      </h2>
      <p role="alert" class="wide">
        {ww.onceWarning}
      </p>
      <div class="wide">
        <CopyText label={ww.appID} text={app.appID} />
        <CopyText label={ww.secret} text={app.appToken} />
      </div>
      <div class="buttons wide">
        <button type="button" onClick={onDone}>
          {ww.done}
        </button>
      </div>
    </div>
  )
}

/** New application: name, role and an optional expiry; then its secret, once, until Done. */
function AppDialog(p: { onCreated: () => void; onClose: () => void }) {
  const ref = useModal()
  const [f, setF] = useState({ appName: '', role: 'user', expiredAt: '' })
  const [created, setCreated] = useState<ApplicationCreatedWire | null>(null)
  const { refusal, busy, submit: submitting } = useSubmit(['appName', 'role', 'expiredAt'])
  const ww = w()
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v })
  const submit = () =>
    submitting(async () => {
      // an expiry only when one is typed: the audit log names the fields sent
      const expiredAt = wireTime(f.expiredAt)
      const body = { appName: f.appName, role: f.role, ...(expiredAt ? { expiredAt } : {}) }
      setCreated(await api<ApplicationCreatedWire>('/applications', { method: 'POST', body }))
      p.onCreated()
    })
  const field = { form: FORM, refusal }
  const roles = ROLES.map((r) => [r, codeLabel('role', r)] as const)
  return (
    <dialog ref={ref} aria-labelledby="app-form-title" onClose={p.onClose} class="fw-dialog">
      {created ? (
        <SecretShown app={created} onDone={() => ref.current?.close()} />
      ) : (
        <DialogForm
          titleID="app-form-title"
          title={ww.newApp}
          refusal={refusal}
          busy={busy}
          submit={ww.create}
          cancel={ww.cancel}
          onSubmit={submit}
          onCancel={() => ref.current?.close()}
        >
          <InputField
            {...field}
            name="appName"
            label={ww.appName}
            required
            maxLength={50}
            value={f.appName}
            onInput={set('appName')}
          />
          <SelectField
            {...field}
            name="role"
            label={ww.role}
            options={roles}
            value={f.role}
            onInput={set('role')}
          />
          <InputField
            {...field}
            name="expiredAt"
            type="datetime-local"
            step={1}
            label={ww.expiresField}
            value={f.expiredAt}
            onInput={set('expiredAt')}
          />
        </DialogForm>
      )}
    </dialog>
  )
}

function AppList() {
  const ww = w()
  const [creating, setCreating] = useState(false)
  const { search, onSearch, list, reread, remove } = useSearchList<App>(
    '/applications',
    'appName',
    {
      _sort: 'id',
      _order: 'desc',
    },
  )
  const revoke = (a: App) => remove(a.id, ww.confirmRevoke(a.appName))
  return (
    <section>
      <h1>{t().applications}</h1>
      <div class="toolbar">
        <SearchBox label={ww.searchApps} value={search} onSearch={onSearch} />{' '}
        <button type="button" onClick={() => setCreating(true)}>
          {ww.newApp}
        </button>
      </div>
      <ErrorNote error={list.error} />
      <div class="stack">
        <PagedTable
          label={ww.table}
          list={list}
          columns={[ww.appName, ww.appID, ww.role, ww.expires, t().created, t().actions]}
          row={(a) => (
            <tr key={a.id}>
              <td data-label={ww.appName}>{a.appName}</td>
              <td data-label={ww.appID}>
                <span class="mono">{a.appID}</span>
              </td>
              <td data-label={ww.role}>{codeLabel('role', a.role)}</td>
              <td data-label={ww.expires} class="time">
                {a.expiredAt ?? ww.never}
              </td>
              <td data-label={t().created} class="time">
                {a.createAt}
              </td>
              <td data-label={t().actions} class="actions">
                <RowButton danger label={ww.revoke} name={a.appName} onClick={() => revoke(a)} />
              </td>
            </tr>
          )}
        />
      </div>
      {creating && <AppDialog onCreated={reread} onClose={() => setCreating(false)} />}
    </section>
  )
}

export function ApplicationsPage() {
  return (
    <AdminOnly title={t().applications}>
      <AppList />
    </AdminOnly>
  )
}
