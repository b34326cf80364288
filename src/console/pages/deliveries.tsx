/**
 * /webhooks/{id}: one webhook's delivery log (server paged, newest first) with Re-send for the roles that may
 * write. An event of a type the webhook takes adds a delivery: the log is read again (at most once a second).
 * Deliveries have no event of their own on the stream, so after a Re-send the log is read again once a second
 * until that delivery leaves `pending` (at most 30 reads).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { errorText } from '../components/error-text.ts'
import { ErrorNote, PagedTable, RowButton, usePagedList } from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'
import { onLive } from '../live.ts'
import type { DeliveryWire } from '../api/wire.ts'

type Delivery = DeliveryWire

const w = words(
  {
    title: (u: string) => `Webhook ${u}`,
    back: 'All webhooks',
    table: 'Deliveries',
    event: 'Event',
    status: 'Status',
    attempts: 'Attempts',
    responseCode: 'Response code',
    time: 'Time',
    nextTry: 'Next try',
    error: 'Error',
    resend: 'Re-send',
    resent: (id: number, status: string) => `Delivery ${id} re-sent: ${status}`,
    body: 'Body',
    showBody: (id: number) => `Body of delivery ${id}`,
  },
  {
    title: (u: string) => `Webhook ${u}`,
    back: '全部 Webhook',
    table: '投递记录',
    event: '事件',
    status: '状态',
    attempts: '尝试次数',
    responseCode: '响应码',
    time: '时间',
    nextTry: '下次尝试',
    error: '错误',
    resend: '重新发送',
    resent: (id: number, status: string) => `投递 ${id} 已重新发送：${status}`,
    body: '请求体',
    showBody: (id: number) => `投递 ${id} 的请求体`,
  },
)

const POLLS = 30

/** The webhook (its url and event types), or why it could not be read. */
function useWebhook(id: number) {
  const [hook, setHook] = useState<{ url: string; events: string[] } | null>(null)
  const [missing, setMissing] = useState<string | null>(null)
  useEffect(() => {
    api<{ url: string; events: string[] }>(`/webhooks/${id}`).then(setHook, (e) =>
      setMissing(errorText(e)),
    )
  }, [id])
  return { hook, missing }
}

/** An event of a type the webhook takes: `reload` (at most once a second). */
function useEventReload(hook: { events: string[] } | null, reload: () => void) {
  useEffect(() => {
    if (!hook) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const off = onLive((e) => {
      if (timer || !hook.events.includes(e.type)) return
      timer = setTimeout(() => {
        timer = undefined
        reload()
      }, 1000)
    })
    return () => {
      off()
      clearTimeout(timer)
    }
  }, [hook])
}

/** The body a delivery sends, read when first shown (pretty-printed JSON). */
function useBody(webhookID: number, deliveryID: number, shown: boolean) {
  const [body, setBody] = useState<string | null>(null)
  useEffect(() => {
    if (!shown || body !== null) return
    api<{ body: string }>(`/webhooks/${webhookID}/deliveries/${deliveryID}`).then(
      (r) => setBody(JSON.stringify(JSON.parse(r.body) as unknown, null, 2)),
      (e) => setBody(errorText(e)),
    )
  }, [shown])
  return body
}

/** One delivery's row, its body shown below it on demand; Re-send when `onResend` is given (roles that write). */
function DeliveryRow(p: { webhookID: number; d: Delivery; onResend?: (d: Delivery) => unknown }) {
  const { d, onResend } = p
  const [shown, setShown] = useState(false)
  const body = useBody(p.webhookID, d.id, shown)
  return (
    <>
      <DeliveryCells d={d} onResend={onResend} shown={shown} onBody={() => setShown(!shown)} />
      {shown && (
        <tr class="delivery-body">
          <td colSpan={onResend ? 8 : 7}>
            <pre class="mono">{body ?? t().loading}</pre>
          </td>
        </tr>
      )}
    </>
  )
}

function DeliveryCells(p: {
  d: Delivery
  onResend?: ((d: Delivery) => unknown) | undefined
  shown: boolean
  onBody: () => void
}) {
  const { d, onResend } = p
  const ww = w()
  return (
    <tr>
      <td>
        {d.type} <span class="muted">#{d.eventID}</span>{' '}
        <button
          type="button"
          class="secondary"
          aria-expanded={p.shown}
          aria-label={ww.showBody(d.id)}
          onClick={p.onBody}
        >
          {ww.body}
        </button>
      </td>
      <td>
        <span class={`badge delivery ${d.status}`}>{d.status}</span>
      </td>
      <td>{d.attempts}</td>
      <td>{d.responseCode ?? '—'}</td>
      <td>{d.updateAt ?? d.createAt ?? '—'}</td>
      <td>{d.status === 'pending' ? (d.nextTryAt ?? '—') : '—'}</td>
      <td>{d.lastError ?? ''}</td>
      {onResend && (
        <td class="actions">
          <RowButton label={w().resend} name={String(d.id)} onClick={() => void onResend(d)} />
        </td>
      )}
    </tr>
  )
}

export function Deliveries({ id }: { id: number }) {
  const canWrite = session.value?.role !== 'viewer'
  const [version, setVersion] = useState(0)
  // the delivery re-sent last, its newest known state, and how many reads are left to watch it
  const [resent, setResent] = useState<{ d: Delivery; left: number } | null>(null)
  const { page, setPage, pages, data, error, setError } = usePagedList<Delivery>(
    `/webhooks/${id}/deliveries`,
    {},
    0,
    version,
  )
  const { hook, missing } = useWebhook(id)

  useEventReload(hook, () => setVersion((v) => v + 1))

  // follow the re-sent delivery in each new read of the log; read again while it is pending
  useEffect(() => {
    if (!resent || !data) return
    const now = data.items.find((d) => d.id === resent.d.id)
    if (now && now !== resent.d) setResent({ d: now, left: resent.left })
    const status = (now ?? resent.d).status
    if (status !== 'pending' || resent.left <= 0) return
    const timer = setTimeout(() => {
      setResent((r) => r && { ...r, left: r.left - 1 })
      setVersion((v) => v + 1)
    }, 1000)
    return () => clearTimeout(timer)
  }, [data, resent?.d.id, resent?.left])

  const resend = (d: Delivery) =>
    api<Delivery>(`/webhooks/${id}/deliveries/${d.id}/retry`, { method: 'POST' }).then(
      (nd) => {
        setResent({ d: nd, left: POLLS })
        setVersion((v) => v + 1)
      },
      (e) => setError(errorText(e)),
    )

  const s = t()
  const ww = w()
  if (missing)
    return (
      <section>
        <h1>{s.webhooks}</h1>
        <ErrorNote error={missing} />
        <a href="/webhooks">{ww.back}</a>
      </section>
    )
  return (
    <section>
      <h1>{ww.title(hook?.url ?? '…')}</h1>
      <p>
        <a href="/webhooks">{ww.back}</a>
      </p>
      {resent && <p role="status">{ww.resent(resent.d.id, resent.d.status)}</p>}
      <ErrorNote error={error} />
      <PagedTable
        label={ww.table}
        list={{ data, page, pages, setPage }}
        columns={[
          ww.event,
          ww.status,
          ww.attempts,
          ww.responseCode,
          ww.time,
          ww.nextTry,
          ww.error,
          canWrite && s.actions,
        ]}
        row={(d) => (
          <DeliveryRow key={d.id} webhookID={id} d={d} onResend={canWrite ? resend : undefined} />
        )}
      />
    </section>
  )
}
