/**
 * A group's command: sent now (POST /group_publish) with its progress followed live (group-progress.tsx), or
 * scheduled (POST /group_schedule_publish) when "When" is not Now.
 */
import { useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import {
  payloadOf,
  PayloadTopic,
  QosField,
  ScheduledNote,
  TimeoutTtl,
  WhenAndName,
} from './command-composer.tsx'
import { Progress, useGroupRun } from './group-progress.tsx'
import { ErrorNote } from './paged-list.tsx'
import { createSchedule, emptyTiming, sw, timingBody, type Schedule } from './schedule-fields.tsx'
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

/** The body of a group command as typed: the topic, timeout and ttl when given, the qos when acknowledged. */
function commandBody(
  groupIntID: number,
  f: { payload: string; topic: string; needAck: string; qos: string; timeout: string; ttl: string },
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    groupIntID,
    payload: payloadOf(f.payload),
    needAck: Number(f.needAck),
  }
  if (f.topic.trim()) body.topic = f.topic.trim()
  if (f.needAck === '1') body.qos = Number(f.qos)
  if (f.timeout) body.timeout = Number(f.timeout)
  if (f.ttl) body.ttl = Number(f.ttl)
  return body
}

/** Whether each member acknowledges the command. */
function NeedAckField(p: { needAck: string; setNeedAck: (v: string) => void }) {
  return (
    <label>
      {gw().needAck}
      <select value={p.needAck} onChange={(e) => p.setNeedAck(e.currentTarget.value)}>
        <option value="1">{t().yes}</option>
        <option value="0">{t().no}</option>
      </select>
    </label>
  )
}

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
      const body = commandBody(p.groupIntID, { payload, topic, needAck, qos, timeout, ttl })
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
        <PayloadTopic payload={payload} setPayload={setPayload} topic={topic} setTopic={setTopic} />
        <NeedAckField needAck={needAck} setNeedAck={setNeedAck} />
        {needAck === '1' && <QosField qos={qos} setQos={setQos} />}
        <TimeoutTtl timeout={timeout} setTimeout={setTimeout_} ttl={ttl} setTtl={setTtl} />
        {timing.when === 'now' && (
          <label>
            {w.rate}
            <input type="number" min={1} max={100000} value={rate} onInput={value(setRate)} />
          </label>
        )}
        <WhenAndName timing={timing} setTiming={setTiming} name={name} setName={setName} />
        <button type="submit" disabled={busy}>
          {timing.when === 'now' ? w.sendToGroup : s.createSchedule}
        </button>
        <ErrorNote error={error} />
      </form>
      {note && <ScheduledNote schedule={note} />}
      {run && <Progress run={run} />}
    </>
  )
}
