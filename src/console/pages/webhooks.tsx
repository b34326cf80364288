/**
 * /webhooks: the tenant's webhooks (url, events, enabled, the status of the last delivery) with create (the secret
 * shown once), edit, enable/disable and delete for the roles that may write; /webhooks/{id}: one webhook's
 * delivery log with Re-send (deliveries.tsx).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session, type Page } from '../api.ts'
import { errorText } from '../components/error-text.ts'
import { ErrorNote, Pager, usePagedList } from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'
import { Deliveries } from './deliveries.tsx'

/** A webhook as GET /webhooks answers it. */
export interface Webhook {
  id: number
  url: string
  events: string[]
  enable: number
}

/** The event types a webhook may subscribe to (CONTRACT §10). */
const EVENTS = [
  'alert.raised',
  'alert.cleared',
  'alert.acked',
  'command.status',
  'device.online',
  'device.offline',
]

export const w = words(
  {
    table: 'Webhooks',
    url: 'URL',
    events: 'Events',
    enabled: 'Enabled',
    lastDelivery: 'Last delivery',
    newWebhook: 'New webhook',
    editWebhook: (u: string) => `Edit webhook ${u}`,
    edit: 'Edit',
    enable: 'Enable',
    disable: 'Disable',
    delete: 'Delete',
    deliveries: 'Deliveries',
    confirmDelete: (u: string) => `Delete the webhook ${u} and its delivery log?`,
    save: 'Save',
    cancel: 'Cancel',
    secret: 'Secret (shown only now: copy it to check the signatures)',
    dismiss: 'Done',
    never: 'none yet',
  },
  {
    table: 'Webhooks',
    url: 'URL',
    events: '事件',
    enabled: '启用',
    lastDelivery: '最近投递',
    newWebhook: '新建 Webhook',
    editWebhook: (u: string) => `编辑 Webhook ${u}`,
    edit: '编辑',
    enable: '启用',
    disable: '停用',
    delete: '删除',
    deliveries: '投递记录',
    confirmDelete: (u: string) => `删除 Webhook ${u} 及其投递记录？`,
    save: '保存',
    cancel: '取消',
    secret: '密钥（仅显示这一次：请复制以校验签名）',
    dismiss: '完成',
    never: '暂无',
  },
)

function WebhookForm(p: {
  hook: Webhook | null
  onDone: (saved: boolean, secret?: string) => void
}) {
  const [url, setUrl] = useState(p.hook?.url ?? '')
  const [events, setEvents] = useState<string[]>(p.hook?.events ?? EVENTS)
  const [enable, setEnable] = useState(p.hook ? p.hook.enable === 1 : true)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const ww = w()
  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    try {
      const body = { url, events, enable: enable ? 1 : 0 }
      if (p.hook) {
        await api(`/webhooks/${p.hook.id}`, { method: 'PUT', body })
        p.onDone(true)
      } else {
        const r = await api<{ secret?: string }>('/webhooks', { method: 'POST', body })
        p.onDone(true, r.secret)
      }
    } catch (err) {
      setError(errorText(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="card hook-form" aria-labelledby="hook-form-h">
      <h2 id="hook-form-h">{p.hook ? ww.editWebhook(p.hook.url) : ww.newWebhook}</h2>
      <form onSubmit={save}>
        <label>
          {ww.url}
          <input
            type="url"
            value={url}
            onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)}
            required
            placeholder="https://hooks.example.com/devicecloud"
          />
        </label>
        <fieldset>
          <legend>{ww.events}</legend>
          {EVENTS.map((ev) => (
            <label key={ev} class="inline">
              <input
                type="checkbox"
                checked={events.includes(ev)}
                onChange={(e) => {
                  const on = (e.currentTarget as HTMLInputElement).checked
                  setEvents((xs) => (on ? [...xs, ev] : xs.filter((x) => x !== ev)))
                }}
              />{' '}
              {ev}
            </label>
          ))}
        </fieldset>
        <label class="inline">
          <input
            type="checkbox"
            checked={enable}
            onChange={(e) => setEnable((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          {ww.enabled}
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
    </section>
  )
}

/** The status of each listed webhook's newest delivery (one read of one row per webhook of the page). */
function useLastStatus(hooks: Webhook[] | undefined) {
  const [last, setLast] = useState<Record<number, string>>({})
  useEffect(() => {
    if (!hooks) return
    let stale = false
    for (const h of hooks)
      api<Page<{ status: string; responseCode: number | null }>>(
        `/webhooks/${h.id}/deliveries?_limit=1`,
      ).then(
        (r) => {
          const d = r.items[0]
          const text = d ? `${d.status}${d.responseCode ? ` (${d.responseCode})` : ''}` : ''
          if (!stale) setLast((m) => ({ ...m, [h.id]: text }))
        },
        () => {},
      )
    return () => {
      stale = true
    }
  }, [hooks])
  return last
}

function WebhookList() {
  const canWrite = session.value?.role !== 'viewer'
  const [version, setVersion] = useState(0)
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null)
  const [secret, setSecret] = useState<string | null>(null)
  const { page, setPage, pages, data, error, setError } = usePagedList<Webhook>(
    '/webhooks',
    {},
    0,
    version,
  )
  const last = useLastStatus(data?.items)
  const reread = () => setVersion((v) => v + 1)
  const act = (p: Promise<unknown>) => p.then(reread, (e) => setError(errorText(e)))
  const s = t()
  const ww = w()
  return (
    <section>
      <h1>{s.webhooks}</h1>
      {canWrite && (
        <div class="toolbar">
          <button type="button" onClick={() => (setEditing('new'), setSecret(null))}>
            {ww.newWebhook}
          </button>
        </div>
      )}
      {secret && (
        <div class="card secret" role="region" aria-label={ww.secret}>
          <label>
            {ww.secret}
            <input readOnly value={secret} class="mono" onFocus={(e) => e.currentTarget.select()} />
          </label>{' '}
          <button type="button" onClick={() => setSecret(null)}>
            {ww.dismiss}
          </button>
        </div>
      )}
      {canWrite && editing && (
        <WebhookForm
          key={editing === 'new' ? 'new' : editing.id}
          hook={editing === 'new' ? null : editing}
          onDone={(saved, sec) => {
            setEditing(null)
            if (sec) setSecret(sec)
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
                <th scope="col">{ww.url}</th>
                <th scope="col">{ww.events}</th>
                <th scope="col">{ww.enabled}</th>
                <th scope="col">{ww.lastDelivery}</th>
                <th scope="col">{s.actions}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((h) => (
                <tr key={h.id}>
                  <td class="mono">{h.url}</td>
                  <td>{h.events.join(', ')}</td>
                  <td>
                    <span class={h.enable ? 'badge on' : 'badge off'}>
                      {h.enable ? s.yes : s.no}
                    </span>
                  </td>
                  <td>{last[h.id] === undefined ? '…' : last[h.id] || ww.never}</td>
                  <td class="actions">
                    <a href={`/webhooks/${h.id}`} aria-label={`${ww.deliveries} ${h.url}`}>
                      {ww.deliveries}
                    </a>
                    {canWrite && (
                      <>
                        {' '}
                        <button
                          type="button"
                          aria-label={`${ww.edit} ${h.url}`}
                          onClick={() => (setEditing(h), setSecret(null))}
                        >
                          {ww.edit}
                        </button>{' '}
                        <button
                          type="button"
                          aria-label={`${h.enable ? ww.disable : ww.enable} ${h.url}`}
                          onClick={() =>
                            act(
                              api(`/webhooks/${h.id}`, {
                                method: 'PUT',
                                body: { url: h.url, events: h.events, enable: h.enable ? 0 : 1 },
                              }),
                            )
                          }
                        >
                          {h.enable ? ww.disable : ww.enable}
                        </button>{' '}
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`${ww.delete} ${h.url}`}
                          onClick={() =>
                            window.confirm(ww.confirmDelete(h.url)) &&
                            act(api(`/webhooks?ids=${h.id}`, { method: 'DELETE' }))
                          }
                        >
                          {ww.delete}
                        </button>
                      </>
                    )}
                  </td>
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

/** /webhooks (the list) or /webhooks/{id} (that webhook's delivery log). */
export function WebhooksPage({ id }: { id?: number }) {
  return id === undefined ? <WebhookList /> : <Deliveries id={id} />
}
