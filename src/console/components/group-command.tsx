/**
 * A group's command: sent now (POST /group_publish) with its progress followed live (group-progress.tsx), or
 * scheduled (POST /group_schedule_publish) when "When" is not Now.
 */
import { useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { payloadOf } from './command-composer.tsx'
import { Progress, useGroupRun } from './group-progress.tsx'
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

export const gw = words(
  {
    groupCommand: 'Group command',
    needAck: 'Each member acknowledges',
    sendToGroup: 'Send to group',
    rate: 'Members per second',
  },
  {
    groupCommand: '分组指令',
    needAck: '每个成员确认',
    sendToGroup: '发送到分组',
    rate: '每秒发送成员数',
  },
)

export function GroupCommand(p: {
  groupIntID: number
  groupID: string
  deviceCount: number
  onChange: () => void
}) {
  const [payload, setPayload] = useState('')
  const [topic, setTopic] = useState('')
  const [needAck, setNeedAck] = useState('1')
  const [qos, setQos] = useState('1')
  const [timeout, setTimeout_] = useState('')
  const [ttl, setTtl] = useState('')
  const [rate, setRate] = useState('')
  const [timing, setTiming] = useState(emptyTiming())
  const [name, setName] = useState('')
  const [note, setNote] = useState<Schedule | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const { run, start } = useGroupRun(p.groupIntID, p.groupID, p.onChange)

  const send = async (ev: Event) => {
    ev.preventDefault()
    setError(null)
    setNote(null)
    setBusy(true)
    try {
      const body: Record<string, unknown> = {
        groupIntID: p.groupIntID,
        payload: payloadOf(payload),
        needAck: Number(needAck),
      }
      if (topic.trim()) body.topic = topic.trim()
      if (needAck === '1') body.qos = Number(qos)
      if (timeout) body.timeout = Number(timeout)
      if (ttl) body.ttl = Number(ttl)
      const when = timingBody(timing)
      if (when) {
        const s = { ...body, ...when, scheduleName: name.trim() }
        setNote(await createSchedule('group', s))
      } else {
        if (rate) body.ratePerSecond = Number(rate)
        const a = await api<{ taskID: string }>('/group_publish', { method: 'POST', body })
        p.onChange()
        await start(a.taskID, p.deviceCount)
      }
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  const value = (set: (v: string) => void) => (e: Event) =>
    set((e.currentTarget as HTMLInputElement).value)
  const w = gw()
  const s = sw()
  return (
    <>
      <form class="composer" onSubmit={send} aria-label={w.groupCommand}>
        <label>
          {t().payload}
          <textarea rows={3} required value={payload} onInput={value(setPayload)} />
        </label>
        <label>
          {t().topic}
          <input value={topic} placeholder="inbox" onInput={value(setTopic)} />
        </label>
        <label>
          {w.needAck}
          <select value={needAck} onChange={value(setNeedAck)}>
            <option value="1">{t().yes}</option>
            <option value="0">{t().no}</option>
          </select>
        </label>
        {needAck === '1' && (
          <label>
            {t().qos}
            <select value={qos} onChange={value(setQos)}>
              <option value="0">0</option>
              <option value="1">1</option>
            </select>
          </label>
        )}
        <label>
          {t().timeoutS}
          <input type="number" min={1} max={3600} value={timeout} onInput={value(setTimeout_)} />
        </label>
        <label>
          {t().ttlS}
          <input type="number" min={0} max={604800} value={ttl} onInput={value(setTtl)} />
        </label>
        {timing.when === 'now' && (
          <label>
            {w.rate}
            <input type="number" min={1} max={100000} value={rate} onInput={value(setRate)} />
          </label>
        )}
        <WhenFields value={timing} onChange={setTiming} />
        {timing.when !== 'now' && (
          <label>
            {s.scheduleName}
            <input required maxLength={50} value={name} onInput={value(setName)} />
          </label>
        )}
        <button type="submit" disabled={busy}>
          {timing.when === 'now' ? w.sendToGroup : s.createSchedule}
        </button>
        <ErrorNote error={error} />
      </form>
      {note && (
        <p role="status" aria-label={s.schedule}>
          {s.scheduled(note.scheduleName, note.nextRunAt ?? '—')}{' '}
          <a href="/schedules">{t().schedules}</a>
        </p>
      )}
      {run && <Progress run={run} />}
    </>
  )
}
