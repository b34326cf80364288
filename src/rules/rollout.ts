/**
 * The rules of a firmware rollout (README "Firmware"), free of I/O: the device states and which report may follow
 * which, the pace (ratePerMinute, raised by the ramp-up as devices update), when the failure threshold aborts a
 * rollout and what a rollout whose devices are all done ends as.
 */

import { OTA_STATUSES, type OtaStatus, type RolloutStatus } from '../../store/fields/rollouts.ts'

export { OTA_STATUSES, ROLLOUT_STATUSES } from '../../store/fields/rollouts.ts'
export type { OtaStatus, RolloutStatus } from '../../store/fields/rollouts.ts'

/** The states a device reports on `ota/progress`. */
export const REPORTED_STATUSES = [
  'downloading',
  'downloaded',
  'verifying',
  'updating',
  'updated',
  'failed',
] as const
export type ReportedStatus = (typeof REPORTED_STATUSES)[number]

/** A device's states once notified and before an outcome: the device is working on the update. */
export const IN_PROGRESS: readonly OtaStatus[] = [
  'notified',
  'downloading',
  'downloaded',
  'verifying',
  'updating',
]
/** A device's outcomes. */
export const FINAL: readonly OtaStatus[] = ['updated', 'failed', 'timed_out', 'canceled']

export const isFinal = (s: OtaStatus) => FINAL.includes(s)
export const isInProgress = (s: OtaStatus) => IN_PROGRESS.includes(s)
/** A rollout that is not over yet: its devices are still being notified or may still be. */
export const isOpen = (s: RolloutStatus) => s === 'running' || s === 'paused'

const order = (s: OtaStatus) => OTA_STATUSES.indexOf(s)

/**
 * Whether a device in `from` may report `to`: forward through the steps (a step may be skipped, or repeated with a
 * new progress), or `failed` at any step. A device that is queued (its retry not yet notified) or done reports
 * nothing more.
 */
export function mayReport(from: OtaStatus, to: ReportedStatus): boolean {
  if (!isInProgress(from)) return false
  return to === 'failed' || order(to) >= order(from)
}

/** How a rollout goes up: from startPerMinute, multiplied by factor each `every` devices updated. */
export interface RampUp {
  startPerMinute: number
  factor: number
  every: number
}

/** The devices a minute a rollout notifies now: its rate, or the ramp-up's while below it. */
export function rateNow(ratePerMinute: number, rampUp: RampUp | null, updated: number): number {
  if (!rampUp) return ratePerMinute
  const steps = Math.floor(updated / Math.max(1, rampUp.every))
  // the factor is at least 1.1: 100 steps pass any rate the API accepts
  const ramped = rampUp.startPerMinute * Math.pow(rampUp.factor, Math.min(steps, 200))
  return Math.max(1, Math.min(ratePerMinute, Math.floor(ramped)))
}

/** Milliseconds between two notifications at `perMinute`. */
export const slotMs = (perMinute: number) => 60_000 / perMinute

/** How far behind a pacer catches up at most: slots older than this are given up rather than taken in a burst. */
export const CATCH_UP_MS = 500

/**
 * The slots due at `now` from `nextAt` (the next slot's time): how many to take now and the next slot's time after
 * them. A pacer that fell behind (a pause, a restart, a slow store) does not catch up in a burst: slots more than
 * CATCH_UP_MS (or one slot) old are given up, and at most `most` are taken at once.
 */
export function dueSlots(
  nextAt: number,
  now: number,
  interval: number,
  most: number,
): { due: number; nextAt: number } {
  const from = Math.max(nextAt, now - Math.max(CATCH_UP_MS, interval))
  if (now < from) return { due: 0, nextAt: from }
  const due = Math.min(Math.floor((now - from) / interval) + 1, most)
  return { due, nextAt: from + due * interval }
}

/** A rollout's devices by state (every state, zero when none). */
export type Counts = Record<OtaStatus, number>

export const emptyCounts = (): Counts =>
  Object.fromEntries(OTA_STATUSES.map((s) => [s, 0])) as Counts

/** Devices with an outcome that counts for the threshold: updated, failed or timed out (not canceled). */
export const finished = (c: Counts) => c.updated + c.failed + c.timed_out

/**
 * Whether the failures pass the threshold: at least `minFinished` devices finished and `percent` of them failed or
 * timed out. No threshold (null) never aborts.
 */
export function shouldAbort(c: Counts, percent: number | null, minFinished: number): boolean {
  if (percent === null) return false
  const n = finished(c)
  return n >= Math.max(1, minFinished) && ((c.failed + c.timed_out) * 100) / n >= percent
}

/** Devices still to notify or still working on the update. */
export const pending = (c: Counts) => c.queued + IN_PROGRESS.reduce((n, s) => n + c[s], 0)

/**
 * What a rollout whose devices are all done ends as: succeeded when every device that was not canceled updated,
 * failed when none did, partial otherwise.
 */
export function outcomeOf(c: Counts): Extract<RolloutStatus, 'succeeded' | 'failed' | 'partial'> {
  const failed = c.failed + c.timed_out
  if (failed === 0) return 'succeeded'
  return c.updated === 0 ? 'failed' : 'partial'
}

/**
 * What becomes of a device whose attempt failed or ran out of time: queued again for its next attempt while
 * retries remain (attempt counts the notifications made), else the outcome.
 */
export function afterFailure(
  attempt: number,
  retries: number,
  outcome: 'failed' | 'timed_out',
): OtaStatus {
  return attempt <= retries ? 'queued' : outcome
}
