/**
 * Runs the open firmware rollouts (README "Firmware"). A rollout is a row one node claims for CLAIM_MS at a time,
 * renewed at every step; a node that stops leaves it to whichever node (itself restarted, or another) claims it once
 * the claim runs out. The claimant:
 * - takes notification slots at the rollout's pace (ratePerMinute, raised by the ramp-up as devices update): the
 *   slots are spread evenly, a few at a tick, and a pacer that fell behind does not catch up in a burst;
 * - each HOUSEKEEP_MS: times out devices past their deadline (queued again while retries remain), aborts the
 *   rollout at its failure threshold, ends it once no device is left to notify or to hear from, and announces its
 *   counts when they changed (at most every ANNOUNCE_MS).
 * Every write is stored only while the claim holds (store/meta/rollouts.ts Claim), with its outbox events.
 */
import { randomUUID } from 'node:crypto'
import type { EventBus } from '../kernel/events.ts'
import type { Claim, MetaStore, RolloutRun } from '../../store/types.ts'
import {
  dueSlots,
  emptyCounts,
  outcomeOf,
  pending,
  rateNow,
  shouldAbort,
  slotMs,
  type Counts,
} from '../rules/rollout.ts'
import type { OtaDelivery } from './ota-delivery.ts'
import type { RolloutService } from './rollouts.ts'

/** How long a claim lasts without a step. */
const CLAIM_MS = 10_000
/** How often a node looks for rollouts nobody holds. */
const CHECK_MS = 1000
/** How often the claimant checks timeouts, the threshold and the end, and reads the counts. */
const HOUSEKEEP_MS = 1000
/** The counts are announced (a `firmware.rollout` event) at most this often. */
const ANNOUNCE_MS = 5000
/** The shortest wait between two ticks. */
const MIN_TICK_MS = 50
/** Slots taken at one tick at most. */
const MOST_SLOTS = 200
/** Rollouts one node runs at once. */
const MOST_RUNNING = 50

export interface EngineDeps {
  meta: MetaStore
  events: EventBus
  service: Pick<RolloutService, 'announce' | 'devicesChanged'>
  delivery: Pick<OtaDelivery, 'sendToIds'>
  now: () => number
  log: (message: string, e?: unknown) => void
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref())

/** One claimed rollout's loop; resolves when it ended, the claim was lost or the engine closes. */
async function runRollout(d: EngineDeps, first: RolloutRun, closed: () => boolean) {
  const { meta, service, now } = d
  let run = first
  const claim: Claim = { rolloutIntID: run.id, token: run.claimToken, until: run.claimedUntil }
  let counts: Counts = emptyCounts()
  let lastHouse = -Infinity
  let lastAnnounce = now()
  let announced = ''

  /** Timeouts, threshold, end, counts: false when the loop should stop. */
  async function housekeep(t: number): Promise<boolean> {
    const current = await meta.rollouts.reload(claim)
    if (!current) return false // canceled (the claim is cleared) or claimed by another node
    run = current
    if (await meta.rollouts.expire(claim, run.retries, t))
      service.devicesChanged(run.tenantID, run.id, [])
    counts = await meta.rollouts.counts(run.id)
    if (
      run.status === 'running' &&
      shouldAbort(counts, run.abortFailedPercent, run.abortMinFinished)
    ) {
      if (await meta.rollouts.stop(run.tenantID, run.id, 'aborted', t, claim)) {
        service.announce(run.tenantID, run.id)
        service.devicesChanged(run.tenantID, run.id, [])
      }
      return false
    }
    if (pending(counts) === 0) {
      if (await meta.rollouts.finish(claim, outcomeOf(counts), t))
        service.announce(run.tenantID, run.id)
      return false
    }
    const key = JSON.stringify(counts)
    if (key !== announced && t - lastAnnounce >= ANNOUNCE_MS) {
      if (!(await meta.rollouts.announce(claim, t))) return false
      announced = key
      lastAnnounce = t
      service.announce(run.tenantID, run.id)
    } else if (!(await meta.rollouts.renew(claim))) return false
    return true
  }

  /** Takes the slots due at `t`; the devices notified are sent their message at once when connected here. */
  async function takeSlots(t: number) {
    const interval = slotMs(rateNow(run.ratePerMinute, run.rampUp, counts.updated))
    const { due, nextAt } = dueSlots(run.nextAt, t, interval, MOST_SLOTS)
    if (due === 0) return
    const picks = await meta.rollouts.eligible(run.id, due)
    const updated = picks.filter((p) => p.softVersion === run.version).map((p) => p.deviceIntID)
    const notify = picks.filter((p) => p.softVersion !== run.version).map((p) => p.deviceIntID)
    const notified = await meta.rollouts.notify(claim, { notified: notify, updated }, nextAt, t)
    run.nextAt = nextAt
    if (notified.length || updated.length)
      service.devicesChanged(run.tenantID, run.id, [
        ...notified.map((n) => n.deviceIntID),
        ...updated,
      ])
    if (notified.length) await d.delivery.sendToIds(notified.map((n) => n.deviceIntID))
  }

  while (!closed()) {
    const t = now()
    claim.until = t + CLAIM_MS
    if (t - lastHouse >= HOUSEKEEP_MS) {
      lastHouse = t
      if (!(await housekeep(t))) return
    }
    if (run.status === 'running') await takeSlots(t)
    const untilSlot = run.status === 'running' ? run.nextAt - now() : HOUSEKEEP_MS
    const untilHouse = lastHouse + HOUSEKEEP_MS - now()
    await sleep(Math.max(MIN_TICK_MS, Math.min(untilSlot, untilHouse)))
  }
}

export function rolloutEngine(d: EngineDeps) {
  const running = new Map<number, Promise<void>>()
  let timer: NodeJS.Timeout | undefined
  let checking = false
  let closed = false

  /** Claims the rollouts nobody holds, while this node runs fewer than MOST_RUNNING. */
  async function check() {
    if (checking || closed) return
    checking = true
    try {
      while (!closed && running.size < MOST_RUNNING) {
        const t = d.now()
        const run = await d.meta.rollouts.claim(t, t + CLAIM_MS, randomUUID())
        if (!run) break
        const loop = runRollout(d, run, () => closed)
          .catch((e) => d.log(`rollout ${run.rolloutID} failed`, e))
          .finally(() => running.delete(run.id))
        running.set(run.id, loop)
      }
    } catch (e) {
      d.log('rollout check failed', e)
    } finally {
      checking = false
    }
  }

  // a rollout made (or ended) here: look for work at once rather than at the next check
  const wake = () => void check()

  return {
    start() {
      d.events.on('firmware.rollout', wake)
      timer = setInterval(wake, CHECK_MS)
      timer.unref()
      wake()
    },
    async close() {
      closed = true
      d.events.off('firmware.rollout', wake)
      clearInterval(timer)
      await Promise.all(running.values())
    },
  }
}

export type RolloutEngine = ReturnType<typeof rolloutEngine>
