/**
 * A rollout's devices (GET /firmware_rollouts/{id}/devices), paged and filtered by state, each with its attempt,
 * progress and error; a row follows its device's `firmware.device` events in place, and a list filtered by a
 * state is read again (at most once a second) when a device enters or leaves that state.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { RolloutDeviceEventWire, RolloutDeviceWire, RolloutWire } from '../api/wire.ts'
import { t } from '../i18n.ts'
import { onLive } from '../live.ts'
import { epochToWire } from '../time.ts'
import { fww, OTA_STATES, statusText } from './firmware-words.ts'
import { ErrorNote, PagedTable, usePagedList } from './paged-list.tsx'
import { rolloutEvent, useSoon } from './rollout-live.ts'

type Row = RolloutDeviceWire

/** The state filter: All or one state, each with its count. */
function StateFilter(p: { rollout: RolloutWire; value: string; onChange: (v: string) => void }) {
  const w = fww()
  return (
    <label>
      {w.state}{' '}
      <select value={p.value} onChange={(e) => p.onChange(e.currentTarget.value)}>
        <option value="">{w.allStates(p.rollout.total)}</option>
        {OTA_STATES.map((s) => (
          <option key={s} value={s}>
            {w.stateCount(statusText('otaStatus', s), p.rollout.counts[s] ?? 0)}
          </option>
        ))}
      </select>
    </label>
  )
}

/** A device's row: its name leading to its page, its state, attempt, progress and error. */
function DeviceRow({ d }: { d: Row }) {
  const w = fww()
  return (
    <tr>
      <td data-label={t().deviceName}>
        <a href={`/devices/${d.deviceIntID}`}>{d.deviceName}</a>
      </td>
      <td data-label={w.status}>{statusText('otaStatus', d.status, d.statusLabel)}</td>
      <td data-label={w.attempt}>{d.attempt}</td>
      <td data-label={w.progress}>{d.progress === null ? '—' : `${d.progress}%`}</td>
      <td data-label={w.error} class="fw-error">
        {d.error ?? ''}
      </td>
      <td data-label={w.updated} class="time">
        {d.updateAt ?? '—'}
      </td>
    </tr>
  )
}

/** The list of rollout `rollout`; `known` gets the state of every device read (for the live counts). */
export function RolloutDevices(p: { rollout: RolloutWire; known: Map<number, string> }) {
  const w = fww()
  const id = p.rollout.id
  const [status, setStatus] = useState('')
  const [version, setVersion] = useState(0)
  const list = usePagedList<Row>(`/firmware_rollouts/${id}/devices`, { status }, 0, version)
  const { data, setData, setPage, error } = list
  const again = useSoon(() => setVersion((n) => n + 1), 1000)

  useEffect(() => {
    for (const d of data?.items ?? []) p.known.set(d.deviceIntID, d.status)
  }, [data])

  useEffect(
    () =>
      onLive((e) => {
        const d = rolloutEvent<RolloutDeviceEventWire>(e, 'firmware.device', id)
        if (!d) return
        if (status) return again()
        const change = { ...d, statusLabel: null, updateAt: epochToWire(d.at) }
        setData(
          (old) =>
            old && {
              ...old,
              items: old.items.map((x) =>
                x.deviceIntID === d.deviceIntID ? { ...x, ...change } : x,
              ),
            },
        )
      }),
    [id, status],
  )
  // a canceled or aborted rollout cancels its queued devices in one event: the rows are read again
  const shownStatus = useRef(p.rollout.status)
  useEffect(() => {
    if (shownStatus.current === p.rollout.status) return
    shownStatus.current = p.rollout.status
    again()
  }, [p.rollout.status])

  return (
    <section class="card" aria-labelledby="rollout-devices-h">
      <h2 id="rollout-devices-h">{w.devices}</h2>
      <div class="toolbar">
        <StateFilter
          rollout={p.rollout}
          value={status}
          onChange={(v) => {
            setStatus(v)
            setPage(1)
          }}
        />
      </div>
      <ErrorNote error={error} />
      <div class="table-scroll stack">
        <PagedTable
          label={w.rolloutDevices}
          list={list}
          columns={[t().deviceName, w.status, w.attempt, w.progress, w.error, w.updated]}
          row={(d) => <DeviceRow key={d.deviceIntID} d={d} />}
        />
      </div>
    </section>
  )
}
