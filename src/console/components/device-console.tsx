/**
 * The device page's Console region: the product's app templates with the device's current value (a switch template
 * is an On/Off switch that sends `{"<dataPointID>": 1|0}` and shows its command's status; a data point whose desired
 * state is not reported yet shows "reported → desired" marked pending), the command composer and the device's recent
 * commands (status live, Cancel while queued). Not shown to viewers (they cannot send commands).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { deviceOf, onLive, type Telemetry } from '../live.ts'
import { CommandComposer, useCommandStatus } from './command-composer.tsx'
import { CommandTable, recentCommandsLabel } from './command-list.tsx'
import { commandText } from './command-words.ts'
import { errorText } from './error-text.ts'
import type { ConsoleTemplateWire, PublishAnswerWire, StateDocumentWire } from '../api/wire.ts'
import { hasKey, jsonText, PendingBadge, stw } from './state-patch.tsx'

type ConsoleTemplate = ConsoleTemplateWire

const sww = words(
  { on: 'On', off: 'Off', status: (name: string) => `${name}: command status` },
  { on: '开', off: '关', status: (name: string) => `${name}：指令状态` },
)

/** The statuses of a switch's command that leave the switch as the device last reported it. */
const NOT_APPLIED = new Set(['unsent', 'failed', 'timed_out', 'expired', 'canceled'])

const isOn = (v: unknown) => v === 1 || v === true || v === '1' || v === 'true'

/**
 * "on → off (pending)": the reported and the desired value of the template's data point while the device's delta
 * holds it (a switch's values as on/off); nothing otherwise.
 */
function PendingValue(p: { tpl: ConsoleTemplate; state: StateDocumentWire | null }) {
  const k = p.tpl.dataPointID
  if (!p.state || !k || !hasKey(p.state.delta, k)) return null
  const s = stw()
  const text = (v: unknown) =>
    v === undefined ? '—' : p.tpl.templateType === 1 ? (isOn(v) ? s.on : s.off) : jsonText(v)
  return (
    <span class="pending-value">
      {text(p.state.reported[k])} → {text(p.state.desired[k])} <PendingBadge />
    </span>
  )
}

/**
 * A switch template: an On/Off switch named by the template. A click sends the other value and shows it while its
 * command goes on (its status and, when it did not reach the device, why, beside the switch); the device's next
 * report of the data point, or a command that did not reach it, brings back the reported value.
 */
function Switch({ deviceIntID, tpl }: { deviceIntID: number; tpl: ConsoleTemplate }) {
  const [sent, setSent] = useState<boolean | null>(null)
  const [status, started] = useCommandStatus()
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  // a report of the data point: the switch shows what the device says
  useEffect(() => setSent(null), [tpl.value])
  const applied = sent !== null && !NOT_APPLIED.has(status?.commandStatus ?? '')
  const on = applied ? sent : isOn(tpl.value)
  const flip = async () => {
    if (!tpl.dataPointID) return
    const to = !on
    setError(null)
    setBusy(true)
    try {
      const body: Record<string, unknown> = {
        deviceIntID,
        payload: { [tpl.dataPointID]: to ? 1 : 0 },
      }
      if (tpl.topic) body.topic = tpl.topic
      started(await api<PublishAnswerWire>('/device_publish', { method: 'POST', body }))
      setSent(to)
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  const s = sww()
  const labelID = `switch-${tpl.id}`
  return (
    <>
      <span id={labelID}>{tpl.templateName}</span>
      <button
        type="button"
        role="switch"
        class="switch"
        aria-checked={on}
        aria-labelledby={labelID}
        disabled={busy || !tpl.dataPointID}
        onClick={flip}
      >
        {on ? s.on : s.off}
      </button>
      {status && (
        <span role="status" aria-label={s.status(tpl.templateName)} class="switch-status">
          {commandText(status)}
        </span>
      )}
      {error && <span role="alert">{error}</span>}
    </>
  )
}

export function DeviceConsole(p: {
  id: number
  deviceID: string
  /** The device's state document, once read (the State region's). */
  state: StateDocumentWire | null
}) {
  const { id, deviceID } = p
  const [templates, setTemplates] = useState<ConsoleTemplate[]>([])

  useEffect(() => {
    let stale = false
    api<Page<ConsoleTemplate>>(`/device_consoles/${id}?_limit=100`).then(
      (p) => !stale && setTemplates(p.items),
      () => !stale && setTemplates([]),
    )
    return () => {
      stale = true
    }
  }, [id])

  useEffect(
    () =>
      onLive((e) => {
        if (e.type !== 'telemetry' || deviceOf(e) !== deviceID) return
        const tm = e.data as Telemetry
        setTemplates((ts) =>
          ts.map((x) =>
            x.dataPointID && x.dataPointID in tm.values
              ? { ...x, value: String(tm.values[x.dataPointID]) }
              : x,
          ),
        )
      }),
    [deviceID],
  )

  return (
    <section aria-labelledby="console-h" class="card">
      <h2 id="console-h">{t().console}</h2>
      {templates.length === 0 ? (
        <p>{t().noTemplates}</p>
      ) : (
        <div class="templates">
          {templates.map((x) => (
            <div key={x.id} class="template">
              {x.templateType === 1 ? (
                <Switch deviceIntID={id} tpl={x} />
              ) : (
                <span>
                  {x.templateName}: <span class="mono">{x.value ?? '—'}</span>
                </span>
              )}
              <PendingValue tpl={x} state={p.state} />
            </div>
          ))}
        </div>
      )}
      <CommandComposer deviceIntID={id} />
      <h3>{recentCommandsLabel()}</h3>
      <CommandTable
        base={`/devices/${id}`}
        deviceID={deviceID}
        label={recentCommandsLabel()}
        limit={5}
      />
    </section>
  )
}
