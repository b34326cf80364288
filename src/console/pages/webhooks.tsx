/**
 * /webhooks: the tenant's webhooks (url, events, enabled, the status of the last delivery, kept current from the
 * event stream) with create (the secret shown once), edit, enable/disable and delete for the roles that may write;
 * /webhooks/{id}: one webhook's delivery log with Re-send (deliveries.tsx).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session, type Page } from '../api/client.ts'
import { errorText } from '../components/error-text.ts'
import { ErrorNote, PagedTable, RowButton, usePagedList } from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'
import { onLive } from '../live.ts'
import { WebhookForm, type Webhook } from '../components/webhook-form.tsx'
import { Deliveries } from './deliveries.tsx'
import { CopyButton } from '../components/copy-text.tsx'

const w = words(
  {
    table: 'Webhooks',
    url: 'URL',
    events: 'Events',
    enabled: 'Enabled',
    lastDelivery: 'Last delivery',
    newWebhook: 'New webhook',
    edit: 'Edit',
    enable: 'Enable',
    disable: 'Disable',
    delete: 'Delete',
    deliveries: 'Deliveries',
    confirmDelete: (u: string) => `Delete the webhook ${u} and its delivery log?`,
    secret: 'Secret (shown only now: copy it to check the signatures)',
    secretShort: 'the secret',
    dismiss: 'Done',
    never: 'none yet',
  },
  {
    table: 'Webhook 推送',
    url: 'URL',
    events: '事件',
    enabled: '启用',
    lastDelivery: '最近投递',
    newWebhook: '新建 Webhook',
    edit: '编辑',
    enable: '启用',
    disable: '停用',
    delete: '删除',
    deliveries: '投递记录',
    confirmDelete: (u: string) => `删除 Webhook ${u} 及其投递记录？`,
    secret: '密钥（仅显示这一次：请复制以校验签名）',
    secretShort: '密钥',
    dismiss: '完成',
    never: '暂无',
  },
)

/**
 * The status of each listed webhook's newest delivery (one read of one row per webhook of the page), read again
 * 2 s after the stream brings an event one of them takes (at most once per 2 s).
 */
function useLastStatus(hooks: Webhook[] | undefined) {
  const [last, setLast] = useState<Record<number, string>>({})
  const [tick, setTick] = useState(0)
  useEffect(() => {
    if (!hooks) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const off = onLive((e) => {
      if (timer || !hooks.some((h) => h.enable && h.events.includes(e.type))) return
      timer = setTimeout(() => {
        timer = undefined
        setTick((n) => n + 1)
      }, 2000)
    })
    return () => {
      off()
      clearTimeout(timer)
    }
  }, [hooks])
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
  }, [hooks, tick])
  return last
}

/** The new webhook's secret, shown once (until Done). */
function SecretCard({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  const ww = w()
  return (
    <div class="card secret" role="region" aria-label={ww.secret}>
      <label>
        {ww.secret}
        <input readOnly value={secret} class="mono" onFocus={(e) => e.currentTarget.select()} />
      </label>{' '}
      <CopyButton label={ww.secretShort} text={secret} />{' '}
      <button type="button" onClick={onDismiss}>
        {ww.dismiss}
      </button>
    </div>
  )
}

/** A webhook's row: its deliveries' link, and edit, enable/disable and delete for the roles that may write. */
function WebhookRow(p: {
  h: Webhook
  last: string | undefined
  canWrite: boolean
  onEdit: (h: Webhook) => void
  act: (p: Promise<unknown>) => unknown
}) {
  const { h, act } = p
  const s = t()
  const ww = w()
  return (
    <tr>
      <td class="mono">{h.url}</td>
      <td>{h.events.join(', ')}</td>
      <td>
        <span class={h.enable ? 'badge on' : 'badge off'}>{h.enable ? s.yes : s.no}</span>
      </td>
      <td>{p.last === undefined ? '…' : p.last || ww.never}</td>
      <td class="actions">
        <a href={`/webhooks/${h.id}`} aria-label={`${ww.deliveries} ${h.url}`}>
          {ww.deliveries}
        </a>
        {p.canWrite && (
          <>
            {' '}
            <RowButton label={ww.edit} name={h.url} onClick={() => p.onEdit(h)} />{' '}
            <RowButton
              label={h.enable ? ww.disable : ww.enable}
              name={h.url}
              onClick={() =>
                act(
                  api(`/webhooks/${h.id}`, {
                    method: 'PUT',
                    body: { url: h.url, events: h.events, enable: h.enable ? 0 : 1 },
                  }),
                )
              }
            />{' '}
            <RowButton
              secondary
              label={ww.delete}
              name={h.url}
              onClick={() =>
                window.confirm(ww.confirmDelete(h.url)) &&
                act(api(`/webhooks?ids=${h.id}`, { method: 'DELETE' }))
              }
            />
          </>
        )}
      </td>
    </tr>
  )
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
      {secret && <SecretCard secret={secret} onDismiss={() => setSecret(null)} />}
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
      <PagedTable
        label={ww.table}
        list={{ data, page, pages, setPage }}
        columns={[ww.url, ww.events, ww.enabled, ww.lastDelivery, s.actions]}
        row={(h) => (
          <WebhookRow
            key={h.id}
            h={h}
            last={last[h.id]}
            canWrite={canWrite}
            onEdit={(x) => (setEditing(x), setSecret(null))}
            act={act}
          />
        )}
      />
    </section>
  )
}

/** /webhooks (the list) or /webhooks/{id} (that webhook's delivery log). */
export function WebhooksPage({ id }: { id?: number }) {
  return id === undefined ? <WebhookList /> : <Deliveries id={id} />
}
