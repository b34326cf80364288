/**
 * Sends one command to the device (POST /device_publish) and shows its commandStatus, followed live from the
 * `command.status` events of its taskID; or, when "When" is not Now, creates a device schedule of that command
 * (POST /device_schedule_publish) and shows its next run with a link to /schedules.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t } from '../i18n.ts'
import { onLive } from '../live.ts'
import { ErrorNote } from './paged-list.tsx'
import {
  createSchedule,
  emptyTiming,
  sw,
  timingBody,
  WhenFields,
  type Schedule,
} from './schedule-fields.tsx'
import { errorText } from './error-text.ts'

interface PublishAnswer {
  taskID: string
  commandStatus: string
}

/** The `command.status` event's data: `{data: {taskID, commandStatus}}`. */
interface CommandStatusEvent {
  data?: { taskID?: string; commandStatus?: string }
}

/** Text that parses as a JSON object or array is sent as JSON; anything else as text. */
export function payloadOf(text: string): unknown {
  try {
    const v: unknown = JSON.parse(text)
    if (typeof v === 'object' && v !== null) return v
  } catch {
    // text
  }
  return text
}

/** The last status seen per taskID: an event may arrive before the POST's answer. */
export function useCommandStatus(): [string | null, (a: PublishAnswer) => void] {
  const seen = useRef(new Map<string, string>())
  const task = useRef<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  useEffect(
    () =>
      onLive((e) => {
        if (e.type !== 'command.status') return
        const d = (e.data as CommandStatusEvent).data
        if (!d?.taskID || !d.commandStatus) return
        seen.current.set(d.taskID, d.commandStatus)
        if (d.taskID === task.current) setStatus(d.commandStatus)
      }),
    [],
  )
  const started = (a: PublishAnswer) => {
    task.current = a.taskID
    setStatus(seen.current.get(a.taskID) ?? a.commandStatus)
  }
  return [status, started]
}

export function CommandComposer({ deviceIntID }: { deviceIntID: number }) {
  const [payload, setPayload] = useState('')
  const [topic, setTopic] = useState('')
  const [qos, setQos] = useState('1')
  const [timeout, setTimeout_] = useState('')
  const [ttl, setTtl] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [status, started] = useCommandStatus()
  const [timing, setTiming] = useState(emptyTiming())
  const [name, setName] = useState('')
  const [scheduled, setScheduled] = useState<Schedule | null>(null)

  const command = () => {
    const body: Record<string, unknown> = { deviceIntID, payload: payloadOf(payload) }
    body.qos = Number(qos)
    if (topic.trim()) body.topic = topic.trim()
    if (timeout) body.timeout = Number(timeout)
    if (ttl) body.ttl = Number(ttl)
    return body
  }

  const send = async (ev: Event) => {
    ev.preventDefault()
    setError(null)
    setScheduled(null)
    setBusy(true)
    try {
      const body = command()
      const when = timingBody(timing)
      if (when)
        setScheduled(
          await createSchedule('device', { ...body, ...when, scheduleName: name.trim() }),
        )
      else started(await api<PublishAnswer>('/device_publish', { method: 'POST', body }))
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  const value = (set: (v: string) => void) => (e: Event) =>
    set((e.currentTarget as HTMLInputElement).value)
  const w = sw()
  return (
    <form class="composer" onSubmit={send}>
      <label>
        {t().payload}
        <textarea rows={3} required value={payload} onInput={value(setPayload)} />
      </label>
      <label>
        {t().topic}
        <input value={topic} placeholder="inbox" onInput={value(setTopic)} />
      </label>
      <label>
        {t().qos}
        <select value={qos} onChange={value(setQos)}>
          <option value="0">0</option>
          <option value="1">1</option>
        </select>
      </label>
      <label>
        {t().timeoutS}
        <input type="number" min={1} max={3600} value={timeout} onInput={value(setTimeout_)} />
      </label>
      <label>
        {t().ttlS}
        <input type="number" min={0} max={604800} value={ttl} onInput={value(setTtl)} />
      </label>
      <WhenFields value={timing} onChange={setTiming} />
      {timing.when !== 'now' && (
        <label>
          {w.scheduleName}
          <input required maxLength={50} value={name} onInput={value(setName)} />
        </label>
      )}
      <button type="submit" disabled={busy}>
        {timing.when === 'now' ? t().sendCommand : w.createSchedule}
      </button>
      <p role="status" aria-label={t().commandStatus} class="mono">
        {status ?? ''}
      </p>
      {scheduled && (
        <p role="status" aria-label={w.schedule} class="wide">
          {w.scheduled(scheduled.scheduleName, scheduled.nextRunAt ?? '—')}{' '}
          <a href="/schedules">{t().schedules}</a>
        </p>
      )}
      <ErrorNote error={error} />
    </form>
  )
}
