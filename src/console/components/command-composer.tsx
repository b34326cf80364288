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
  type Timing,
} from './schedule-fields.tsx'
import { errorText } from './error-text.ts'
import { commandEventData, commandText, type CommandState } from './command-words.ts'
import type { PublishAnswerWire } from '../api/wire.ts'

type PublishAnswer = PublishAnswerWire

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

/**
 * The status (and its reason) of the last command sent, followed on the event stream; the last one seen per taskID
 * is kept, since an event may arrive before the POST's answer.
 */
export function useCommandStatus(): [CommandState | null, (a: PublishAnswer) => void] {
  const seen = useRef(new Map<string, CommandState>())
  const task = useRef<string | null>(null)
  const [status, setStatus] = useState<CommandState | null>(null)
  useEffect(
    () =>
      onLive((e) => {
        const d = commandEventData(e)
        if (!d) return
        const state = { commandStatus: d.commandStatus, statusReason: d.statusReason ?? null }
        seen.current.set(d.taskID, state)
        if (d.taskID === task.current) setStatus(state)
      }),
    [],
  )
  const started = (a: PublishAnswer) => {
    task.current = a.taskID
    setStatus(seen.current.get(a.taskID) ?? a)
  }
  return [status, started]
}

/** What an input's event holds, for a setter of text state. */
const valueOf = (set: (v: string) => void) => (e: Event) =>
  set((e.currentTarget as HTMLInputElement).value)

/** A command's payload and topic (a device's and a group's command). */
export function PayloadTopic(p: {
  payload: string
  setPayload: (v: string) => void
  topic: string
  setTopic: (v: string) => void
}) {
  return (
    <>
      <label>
        {t().payload}
        <textarea rows={3} required value={p.payload} onInput={valueOf(p.setPayload)} />
      </label>
      <label>
        {t().topic}
        <input value={p.topic} placeholder="inbox" onInput={valueOf(p.setTopic)} />
      </label>
    </>
  )
}

/** A command's QoS: 0 or 1. */
export function QosField(p: { qos: string; setQos: (v: string) => void }) {
  return (
    <label>
      {t().qos}
      <select value={p.qos} onChange={valueOf(p.setQos)}>
        <option value="0">0</option>
        <option value="1">1</option>
      </select>
    </label>
  )
}

/** How long a command waits for its acknowledgement, and how long it may wait for its device to connect. */
export function TimeoutTtl(p: {
  timeout: string
  setTimeout: (v: string) => void
  ttl: string
  setTtl: (v: string) => void
}) {
  return (
    <>
      <label>
        {t().timeoutS}
        <input type="number" min={1} max={3600} value={p.timeout} onInput={valueOf(p.setTimeout)} />
      </label>
      <label>
        {t().ttlS}
        <input type="number" min={0} max={604800} value={p.ttl} onInput={valueOf(p.setTtl)} />
      </label>
    </>
  )
}

/** When and, for a schedule, its name. */
export function WhenAndName(p: {
  timing: Timing
  setTiming: (t: Timing) => void
  name: string
  setName: (v: string) => void
}) {
  return (
    <>
      <WhenFields value={p.timing} onChange={p.setTiming} />
      {p.timing.when !== 'now' && (
        <label>
          {sw().scheduleName}
          <input required maxLength={50} value={p.name} onInput={valueOf(p.setName)} />
        </label>
      )}
    </>
  )
}

/** The schedule a command became: its name, next run and a link to the schedules. */
export function ScheduledNote({ schedule, wide }: { schedule: Schedule; wide?: boolean }) {
  const w = sw()
  return (
    <p role="status" aria-label={w.schedule} class={wide ? 'wide' : undefined}>
      {w.scheduled(schedule.scheduleName, schedule.nextRunAt ?? '—')}{' '}
      <a href="/schedules">{t().schedules}</a>
    </p>
  )
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

  const w = sw()
  return (
    <form class="composer" onSubmit={send}>
      <PayloadTopic payload={payload} setPayload={setPayload} topic={topic} setTopic={setTopic} />
      <QosField qos={qos} setQos={setQos} />
      <TimeoutTtl timeout={timeout} setTimeout={setTimeout_} ttl={ttl} setTtl={setTtl} />
      <WhenAndName timing={timing} setTiming={setTiming} name={name} setName={setName} />
      <button type="submit" disabled={busy}>
        {timing.when === 'now' ? t().sendCommand : w.createSchedule}
      </button>
      <p role="status" aria-label={t().commandStatus}>
        {status ? commandText(status) : ''}
      </p>
      {scheduled && <ScheduledNote schedule={scheduled} wide />}
      <ErrorNote error={error} />
    </form>
  )
}
