/**
 * A rollout kept current from the event stream, without polling: read once, then its `firmware.rollout` events set
 * its status and counts (the service sends one on every status change, and the counts at most every 5 s while they
 * change), and its `firmware.device` events move a device from its last known state to its new one in between.
 * A device whose last state is not known here (not listed, no event seen) has the rollout read again, at most once
 * a second; so does a status change that ends the rollout (for its finish time).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { onLive, type LiveEvent } from '../live.ts'
import type { RolloutDeviceEventWire, RolloutEventWire, RolloutWire } from '../api/wire.ts'
import { OPEN_ROLLOUT } from './firmware-words.ts'
import { readError } from './record-page.tsx'

/** The `data` of a stream event of `type` for rollout `id`, else undefined. */
export function rolloutEvent<T extends { rolloutIntID: number }>(
  e: LiveEvent,
  type: 'firmware.rollout' | 'firmware.device',
  id?: number,
): T | undefined {
  if (e.type !== type) return undefined
  const d = (e.data as { data?: T } | null)?.data
  return d && (id === undefined || d.rolloutIntID === id) ? d : undefined
}

/** Calls the latest `fn` once, `ms` after the first of any number of calls meanwhile. */
export function useSoon(fn: () => void, ms: number) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const latest = useRef(fn)
  latest.current = fn
  useEffect(() => () => clearTimeout(timer.current), [])
  return () => {
    if (timer.current !== undefined) return
    timer.current = setTimeout(() => {
      timer.current = undefined
      latest.current()
    }, ms)
  }
}

/** `counts` with one device moved from state `from` to `to`. */
const moved = (counts: Record<string, number>, from: string, to: string) => ({
  ...counts,
  [from]: Math.max(0, (counts[from] ?? 0) - 1),
  [to]: (counts[to] ?? 0) + 1,
})

/**
 * Rollout `id`, live. `known` holds the last state of each device seen (the devices list writes the rows it reads
 * into it too); `set` takes a record an action answered.
 */
export function useLiveRollout(id: number) {
  const [rollout, setRollout] = useState<RolloutWire | null>(null)
  const [error, setError] = useState<string | null>(null)
  const known = useRef(new Map<number, string>())
  // the status shown, for the events to compare with
  const shown = useRef<string | undefined>(undefined)
  shown.current = rollout?.status
  const reread = () =>
    void api<RolloutWire>(`/firmware_rollouts/${id}`).then(setRollout, () => {
      // the next event reads it again
    })
  const soon = useSoon(reread, 1000)

  useEffect(() => {
    let stale = false
    api<RolloutWire>(`/firmware_rollouts/${id}`).then(
      (r) => !stale && setRollout(r),
      (e: unknown) => !stale && setError(readError(e)),
    )
    return () => {
      stale = true
    }
  }, [id])

  useEffect(
    () =>
      onLive((e) => {
        const r = rolloutEvent<RolloutEventWire>(e, 'firmware.rollout', id)
        if (r) {
          // a status that ends the rollout: read again for its finish time
          if (shown.current && shown.current !== r.status && !OPEN_ROLLOUT.has(r.status)) soon()
          setRollout((old) => {
            // the API's label is of the old status: the console's copy names the new one
            const label = old?.status === r.status ? old.statusLabel : null
            const { status, total, counts } = r
            return old && { ...old, status, statusLabel: label, total, counts }
          })
          return
        }
        const d = rolloutEvent<RolloutDeviceEventWire>(e, 'firmware.device', id)
        if (!d) return
        const from = known.current.get(d.deviceIntID)
        known.current.set(d.deviceIntID, d.status)
        if (from === undefined) soon()
        else if (from !== d.status)
          setRollout((old) => old && { ...old, counts: moved(old.counts, from, d.status) })
      }),
    [id],
  )
  return { rollout, error, known: known.current, set: setRollout }
}
