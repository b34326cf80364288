/**
 * The device page's Console region: the product's app templates with the device's current value (switches send
 * `{"<dataPointID>": 1|0}`; a data point whose desired state is not reported yet shows "reported → desired" marked
 * pending), the command composer and the device's recent commands (status live, Cancel while queued). Not shown to
 * viewers (they cannot send commands).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { t } from '../i18n.ts'
import { deviceOf, onLive, type Telemetry } from '../live.ts'
import { CommandComposer } from './command-composer.tsx'
import { CommandTable, recentCommandsLabel } from './command-list.tsx'
import type { ConsoleTemplateWire, StateDocumentWire } from '../api/wire.ts'
import { hasKey, jsonText, PendingBadge, stw } from './state-patch.tsx'

type ConsoleTemplate = ConsoleTemplateWire

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

function Switch({ deviceIntID, tpl }: { deviceIntID: number; tpl: ConsoleTemplate }) {
  const on = isOn(tpl.value)
  const [error, setError] = useState<string | null>(null)
  const flip = async () => {
    if (!tpl.dataPointID) return
    setError(null)
    try {
      const body: Record<string, unknown> = {
        deviceIntID,
        payload: { [tpl.dataPointID]: on ? 0 : 1 },
      }
      if (tpl.topic) body.topic = tpl.topic
      await api('/device_publish', { method: 'POST', body })
    } catch (e) {
      setError(String(e))
    }
  }
  return (
    <>
      <button type="button" role="switch" aria-checked={on} onClick={flip}>
        {tpl.templateName}
      </button>
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
