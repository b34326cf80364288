/**
 * /users (admins): the tenant's users (username, email, role, enabled or disabled, created), searched by name; New
 * user (username, email, password, role), Edit (username, email, role), Reset password, Disable / Enable (a disabled
 * user cannot sign in; disabling is asked first) and Delete (asked first); neither of the last two for oneself.
 */
import { useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import type { UserWire } from '../api/wire.ts'
import { AdminOnly } from '../components/admin-only.tsx'
import { codeLabel, enumLabel, ROLES } from '../components/admin-words.ts'
import { useModal } from '../components/dialog.tsx'
import { refusalOf, useSubmit, type Refusal } from '../components/field-errors.tsx'
import { DialogForm, InputField, SelectField } from '../components/form-field.tsx'
import {
  ErrorNote,
  PagedTable,
  RowButton,
  SearchBox,
  useSearchList,
} from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'

type User = UserWire

const w = words(
  {
    table: 'Users',
    searchUsers: 'Search users',
    newUser: 'New user',
    editUser: (name: string) => `Edit user ${name}`,
    resetPassword: 'Reset password',
    resetPasswordOf: (name: string) => `Reset the password of ${name}`,
    username: 'Username',
    role: 'Role',
    newPassword: 'New password',
    repeatPassword: 'Repeat the password',
    mismatch: 'the two passwords differ',
    passwordHint: 'at least 8 characters',
    edit: 'Edit',
    status: 'Status',
    disable: 'Disable',
    enable: 'Enable',
    confirmDisable: (name: string) =>
      `Disable the user ${name}? They are signed out and cannot sign in until enabled again.`,
    delete: 'Delete',
    save: 'Save',
    create: 'Create',
    cancel: 'Cancel',
    you: '(you)',
    confirmDelete: (name: string) => `Delete the user ${name}? They can no longer sign in.`,
    passwordSet: (name: string) => `The password of ${name} was changed.`,
  },
  {
    table: '用户',
    searchUsers: '搜索用户',
    newUser: '新建用户',
    editUser: (name: string) => `编辑用户 ${name}`,
    resetPassword: '重置密码',
    resetPasswordOf: (name: string) => `重置 ${name} 的密码`,
    username: '用户名',
    role: '角色',
    newPassword: '新密码',
    repeatPassword: '再次输入密码',
    mismatch: '两次输入的密码不一致',
    passwordHint: '至少 8 个字符',
    edit: '编辑',
    status: '状态',
    disable: '停用',
    enable: '启用',
    confirmDisable: (name: string) => `停用用户 ${name}？该用户将被登出，重新启用前无法登录。`,
    delete: '删除',
    save: '保存',
    create: '创建',
    cancel: '取消',
    you: '（本人）',
    confirmDelete: (name: string) => `删除用户 ${name}？删除后该用户将无法登录。`,
    passwordSet: (name: string) => `已修改 ${name} 的密码。`,
  },
)

const FORM = 'user-form'
const FIELDS = ['username', 'email', 'password', 'role'] as const

/** The fields of `edited` whose value differs from the user's. */
const changedOf = (user: User, edited: Pick<User, 'username' | 'email' | 'role'>) =>
  Object.fromEntries(Object.entries(edited).filter(([k, v]) => user[k as keyof User] !== v))

/** The role select's options, labelled. */
const roleOptions = () => ROLES.map((r) => [r, codeLabel('role', r)] as const)

/** A user as the dialog has it typed. */
type UserTyped = { username: string; email: string; password: string; role: string }

/** The user dialog's fields: username, email, the password (new users only), role. */
function UserFields(p: {
  f: UserTyped
  set: (k: keyof UserTyped) => (v: string) => void
  refusal: Refusal | null
  withPassword: boolean
}) {
  const ww = w()
  const { f, set } = p
  const field = { form: FORM, refusal: p.refusal }
  return (
    <>
      <InputField
        {...field}
        name="username"
        label={ww.username}
        required
        maxLength={50}
        value={f.username}
        onInput={set('username')}
      />
      <InputField
        {...field}
        name="email"
        type="email"
        label={t().email}
        required
        value={f.email}
        onInput={set('email')}
      />
      {p.withPassword && (
        <InputField
          {...field}
          name="password"
          type="password"
          autoComplete="new-password"
          label={t().password}
          placeholder={ww.passwordHint}
          required
          minLength={8}
          value={f.password}
          onInput={set('password')}
        />
      )}
      <SelectField
        {...field}
        name="role"
        label={ww.role}
        options={roleOptions()}
        value={f.role}
        onInput={set('role')}
      />
    </>
  )
}

/** A dialog: New user (every field) or Edit user (username, email, role; the password has its own dialog). */
function UserDialog(p: { user: User | null; onSaved: () => void; onClose: () => void }) {
  const ref = useModal()
  const [f, setF] = useState<UserTyped>({
    username: p.user?.username ?? '',
    email: p.user?.email ?? '',
    password: '',
    role: p.user?.role ?? 'user',
  })
  const { refusal, busy, submit: submitting } = useSubmit(FIELDS)
  const ww = w()
  const set = (k: keyof UserTyped) => (v: string) => setF({ ...f, [k]: v })
  const submit = () =>
    submitting(async () => {
      if (p.user) {
        // only what changed: the audit log then names exactly the fields that were edited
        const { username, email, role } = f
        const body = changedOf(p.user, { username, email, role })
        if (Object.keys(body).length) await api(`/users/${p.user.id}`, { method: 'PUT', body })
      } else await api('/users', { method: 'POST', body: f })
      ref.current?.close()
      p.onSaved()
    })
  return (
    <dialog ref={ref} aria-labelledby="user-form-title" onClose={p.onClose} class="fw-dialog">
      <DialogForm
        titleID="user-form-title"
        title={p.user ? ww.editUser(p.user.username) : ww.newUser}
        refusal={refusal}
        busy={busy}
        submit={p.user ? ww.save : ww.create}
        cancel={ww.cancel}
        onSubmit={submit}
        onCancel={() => ref.current?.close()}
      >
        <UserFields f={f} set={set} refusal={refusal} withPassword={!p.user} />
      </DialogForm>
    </dialog>
  )
}

/** A dialog setting a user's password (`PUT /users/{id}` with `password`), typed twice. */
function PasswordDialog(p: { user: User; onSaved: () => void; onClose: () => void }) {
  const ref = useModal()
  const [f, setF] = useState({ password: '', repeat: '' })
  const { refusal, setRefusal, busy, submit: submitting } = useSubmit(['password'])
  const ww = w()
  const submit = async () => {
    if (f.password !== f.repeat)
      return setRefusal({ message: ww.mismatch, fields: { repeat: ww.mismatch } })
    await submitting(async () => {
      await api(`/users/${p.user.id}`, { method: 'PUT', body: { password: f.password } })
      ref.current?.close()
      p.onSaved()
    })
  }
  const field = { form: 'password-form', refusal, type: 'password' as const, required: true }
  return (
    <dialog ref={ref} aria-labelledby="password-form-title" onClose={p.onClose} class="fw-dialog">
      <DialogForm
        titleID="password-form-title"
        title={ww.resetPasswordOf(p.user.username)}
        refusal={refusal}
        busy={busy}
        submit={ww.resetPassword}
        cancel={ww.cancel}
        onSubmit={submit}
        onCancel={() => ref.current?.close()}
      >
        <InputField
          {...field}
          name="password"
          autoComplete="new-password"
          minLength={8}
          label={ww.newPassword}
          placeholder={ww.passwordHint}
          value={f.password}
          onInput={(v) => setF({ ...f, password: v })}
        />
        <InputField
          {...field}
          name="repeat"
          autoComplete="new-password"
          label={ww.repeatPassword}
          value={f.repeat}
          onInput={(v) => setF({ ...f, repeat: v })}
        />
      </DialogForm>
    </dialog>
  )
}

/** A user's row: Edit, Reset password, Disable / Enable and Delete (the last two not on one's own row). */
function UserRow(p: {
  u: User
  onEdit: () => void
  onPassword: () => void
  onToggle: () => void
  onDelete: () => void
}) {
  const { u } = p
  const ww = w()
  const self = session.value?.email === u.email
  return (
    <tr>
      <td data-label={ww.username}>
        <span>
          {u.username} {self && <span class="muted">{ww.you}</span>}
        </span>
      </td>
      <td data-label={t().email}>{u.email}</td>
      <td data-label={ww.role}>{codeLabel('role', u.role)}</td>
      <td data-label={ww.status}>
        <span class={u.enable ? 'badge on' : 'badge off'}>{enumLabel('userEnable', u.enable)}</span>
      </td>
      <td data-label={t().created} class="time">
        {u.createAt}
      </td>
      <td data-label={t().actions} class="actions">
        {/* one element: a stacked row (a narrow screen) wraps the buttons instead of squeezing them */}
        <span>
          <RowButton label={ww.edit} name={u.username} onClick={p.onEdit} />{' '}
          <RowButton secondary label={ww.resetPassword} name={u.username} onClick={p.onPassword} />{' '}
          {!self && (
            <>
              <RowButton
                secondary
                label={u.enable ? ww.disable : ww.enable}
                name={u.username}
                onClick={p.onToggle}
              />{' '}
              <RowButton danger label={ww.delete} name={u.username} onClick={p.onDelete} />
            </>
          )}
        </span>
      </td>
    </tr>
  )
}

function UserList() {
  const ww = w()
  const [editing, setEditing] = useState<User | 'new' | null>(null)
  const [resetting, setResetting] = useState<User | null>(null)
  const [note, setNote] = useState('')
  const { search, onSearch, list, reread, ...rows } = useSearchList<User>('/users', 'username', {
    _sort: 'username',
    _order: 'asc',
  })
  const remove = (u: User) => rows.remove(u.id, ww.confirmDelete(u.username))
  // disabling is asked first; enabling is not (it takes nothing away)
  const toggle = async (u: User) => {
    if (u.enable && !window.confirm(ww.confirmDisable(u.username))) return
    setNote('')
    try {
      await api(`/users/${u.id}`, { method: 'PUT', body: { enable: u.enable ? 0 : 1 } })
    } catch (e) {
      setNote(refusalOf(e, []).message)
    }
    reread()
  }
  return (
    <section>
      <h1>{t().users}</h1>
      <div class="toolbar">
        <SearchBox label={ww.searchUsers} value={search} onSearch={onSearch} />{' '}
        <button type="button" onClick={() => (setEditing('new'), setNote(''))}>
          {ww.newUser}
        </button>
      </div>
      <p role="status">{note}</p>
      <ErrorNote error={list.error} />
      <div class="stack">
        <PagedTable
          label={ww.table}
          list={list}
          columns={[ww.username, t().email, ww.role, ww.status, t().created, t().actions]}
          row={(u) => (
            <UserRow
              key={u.id}
              u={u}
              onEdit={() => (setEditing(u), setNote(''))}
              onPassword={() => (setResetting(u), setNote(''))}
              onToggle={() => void toggle(u)}
              onDelete={() => void remove(u)}
            />
          )}
        />
      </div>
      {editing && (
        <UserDialog
          key={editing === 'new' ? 'new' : editing.id}
          user={editing === 'new' ? null : editing}
          onSaved={reread}
          onClose={() => setEditing(null)}
        />
      )}
      {resetting && (
        <PasswordDialog
          key={resetting.id}
          user={resetting}
          onSaved={() => setNote(ww.passwordSet(resetting.username))}
          onClose={() => setResetting(null)}
        />
      )}
    </section>
  )
}

export function UsersPage() {
  return (
    <AdminOnly title={t().users}>
      <UserList />
    </AdminOnly>
  )
}
