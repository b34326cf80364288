/**
 * The device page's Console region: the product's app templates with the device's current value (switches send
 * `{"<dataPointID>": 1|0}`), the command composer and the device's recent commands (status live, Cancel while
 * queued). Not shown to viewers (they cannot send commands).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { t } from '../i18n.ts'
import { deviceOf, onLive, type Telemetry } from '../live.ts'
import { CommandComposer } from './command-composer.tsx'
import { CommandTable, recentCommandsLabel } from './command-list.tsx'
import type { ConsoleTemplateWire } from '../api/wire.ts'

type ConsoleTemplate = ConsoleTemplateWire

const isOn = (v: unknown) => v === 1 || v === true || v === '1' || v === 'true'

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
    <div class="template">
      <button type="button" role="switch" aria-checked={on} onClick={flip}>
        {tpl.templateName}
      </button>
      {error && <span role="alert">{error}</span>}
    </div>
  )
}

export function DeviceConsole({ id, deviceID }: { id: number; deviceID: string }) {
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
          {templates.map((x) =>
            x.templateType === 1 ? (
              <Switch key={x.id} deviceIntID={id} tpl={x} />
            ) : (
              <p key={x.id}>
                {x.templateName}: <span class="mono">{x.value ?? '—'}</span>
              </p>
            ),
          )}
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
