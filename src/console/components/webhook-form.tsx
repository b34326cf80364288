/** The form of a webhook (create or edit): url, event types, enabled; the API's refusal in role alert. */
import { useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { words } from '../i18n.ts'
import { errorText } from './error-text.ts'
import { ErrorNote } from './paged-list.tsx'
import type { WebhookWire } from '../api/wire.ts'

/** A webhook as GET /webhooks answers it. */
export type Webhook = WebhookWire

/** The event types a webhook may subscribe to (CONTRACT §10). */
const EVENTS = [
  'alert.raised',
  'alert.cleared',
  'alert.acked',
  'command.status',
  'device.online',
  'device.offline',
  'device.state',
]

const w = words(
  {
    url: 'URL',
    events: 'Events',
    enabled: 'Enabled',
    newWebhook: 'New webhook',
    editWebhook: (u: string) => `Edit webhook ${u}`,
    save: 'Save',
    cancel: 'Cancel',
  },
  {
    url: 'URL',
    events: '事件',
    enabled: '启用',
    newWebhook: '新建 Webhook',
    editWebhook: (u: string) => `编辑 Webhook ${u}`,
    save: '保存',
    cancel: '取消',
  },
)

/** On save `onDone(true, secret)` (the secret of a new webhook); on cancel `onDone(false)`. */
export function WebhookForm(p: {
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
            onInput={(e) => setUrl(e.currentTarget.value)}
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
                  const on = e.currentTarget.checked
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
            onChange={(e) => setEnable(e.currentTarget.checked)}
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
