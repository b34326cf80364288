/**
 * Firmware rollouts (src/services/rollouts.ts, src/services/rollout-engine.ts): a rollout row and one row per device
 * it targets. Every change of a row is stored with the outbox events that announce it (`firmware.rollout`,
 * `firmware.device`), built in the same transaction from the rows it changed. The engine's writes hold while its
 * claim on the rollout does (`Claim`): a node that lost its claim changes nothing.
 */
import type { ListArgs, Page } from '../list.ts'
import type {
  OtaStatus,
  RolloutDeviceRecord,
  RolloutRecord,
  RolloutStatus,
} from '../fields/rollouts.ts'

export type { RolloutDeviceRecord, RolloutRecord } from '../fields/rollouts.ts'

/** How a rollout's rate rises: from startPerMinute, times factor each `every` devices updated. */
export interface RampUpInput {
  startPerMinute: number
  factor: number
  every: number
}

/** A rollout as the service stores it; the devices are those of the target, fixed now. */
export interface RolloutInput {
  firmwareIntID: number
  firmwareID: string
  version: string
  productIntID: number
  target:
    | { kind: 'devices'; deviceIntIDs: number[] }
    | { kind: 'group'; groupIntID: number }
    | { kind: 'product' }
  /** Only devices whose softVersion is one of these (null: every device). */
  fromVersions: string[] | null
  ratePerMinute: number
  rampUp: RampUpInput | null
  abortFailedPercent: number | null
  abortMinFinished: number
  timeoutMinutes: number
  retries: number
  userIntID: number | null
}

/** A rollout as the engine runs it. */
export interface RolloutRun {
  id: number
  tenantID: string
  rolloutID: string
  firmwareIntID: number | null
  firmwareID: string
  version: string
  status: RolloutStatus
  ratePerMinute: number
  rampUp: RampUpInput | null
  abortFailedPercent: number | null
  abortMinFinished: number
  timeoutMinutes: number
  retries: number
  /** Epoch ms of the next notification slot. */
  nextAt: number
  /** This node's claim: its token and until when it holds. */
  claimToken: string
  claimedUntil: number
}

/** The engine's claim on a rollout: every write of a step holds only while the token is still the rollout's. */
export interface Claim {
  rolloutIntID: number
  token: string
  /** The claim's new end (each step renews it). */
  until: number
}

/** A device whose turn came: its record id and its softVersion now. */
export interface Eligible {
  deviceIntID: number
  softVersion: string | null
}

/** A device's row in a rollout, as its report is checked against it. */
export interface RolloutDeviceRow {
  rolloutIntID: number
  rolloutID: string
  rolloutStatus: RolloutStatus
  version: string
  retries: number
  timeoutMinutes: number
  status: OtaStatus
  attempt: number
  deliveredAt: number | null
}

/** What a device's report changes in its row (guarded by the status and attempt it was read with). */
export interface ReportChange {
  rolloutIntID: number
  deviceIntID: number
  expected: { status: OtaStatus; attempt: number }
  status: OtaStatus
  progress: number | null
  error: string | null
  /** Set when the report is the first sign of a delivery the row did not record (a retained notify). */
  deliveredAt?: number
  deadline?: number
  /** The device's new softVersion (an `updated` report). */
  softVersion?: string
}

/** A message waiting for a device: a notification of a rollout, or the cancel of one it was notified of. */
export interface PendingMessage {
  kind: 'notify' | 'cancel'
  rolloutIntID: number
  rolloutID: string
  deviceIntID: number
  attempt: number
  firmwareID: string
  version: string
  size: number
  sha256: string
  timeoutMinutes: number
}

export interface RolloutRepository {
  list(tenant: string, q: ListArgs): Promise<Page<RolloutRecord>>
  /** NotFound when missing or another tenant's. */
  get(tenant: string, id: number): Promise<RolloutRecord>
  /** A rollout's devices (NotFound for a foreign rollout); filters rolloutID, deviceID, deviceName, status. */
  devices(tenant: string, rolloutIntID: number, q: ListArgs): Promise<Page<RolloutDeviceRecord>>
  /** A device's rows in every rollout, newest change first (its firmware history). */
  history(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<RolloutDeviceRecord>>

  /** The tenant's devices (not gateways) of these deviceIDs, with their product (missing ones are absent). */
  devicesOf(
    tenant: string,
    deviceIDs: readonly string[],
  ): Promise<Array<{ id: number; deviceID: string; productIntID: number }>>
  /** The softVersions of a product's devices with their counts, most devices first (NotFound: not the tenant's). */
  softVersions(
    tenant: string,
    productIntID: number,
  ): Promise<Array<{ softVersion: string | null; count: number }>>
  /** How many devices the target has (of the product, from the versions given). */
  targetCount(tenant: string, input: RolloutInput): Promise<number>
  /**
   * Stores the rollout, running, with a row per device of its target: `updated` for devices at the version
   * already, else `queued`; its first slot at `now`. Answers its record id.
   */
  create(tenant: string, input: RolloutInput, now: number): Promise<number>
  /** Moves a rollout from one of `from` to `to` (pause, resume: `nextAt` restarts the pace); false if it was not. */
  setStatus(
    tenant: string,
    id: number,
    from: readonly RolloutStatus[],
    to: RolloutStatus,
    now: number,
  ): Promise<boolean>
  /**
   * Ends an open rollout as `to` (canceled by a caller, aborted by the engine under `claim`): its queued and
   * not yet delivered devices are canceled, those notified already canceled with an `ota/cancel` to send. False
   * when it was not open (or the claim was lost).
   */
  stop(
    tenant: string,
    id: number,
    to: 'canceled' | 'aborted',
    now: number,
    claim?: Claim,
  ): Promise<boolean>

  /** Claims an open rollout nobody holds (its claim ran out) until `until`; undefined when there is none. */
  claim(now: number, until: number, token: string): Promise<RolloutRun | undefined>
  /** The rollout as it is now, while `claim` holds (undefined once lost). */
  reload(claim: Claim): Promise<RolloutRun | undefined>
  /** A rollout's devices by state. */
  counts(rolloutIntID: number): Promise<Record<OtaStatus, number>>
  /**
   * Queued devices whose turn may come, in id order: not in progress in another rollout, and not queued in an
   * earlier open one (the earlier rollout goes first).
   */
  eligible(rolloutIntID: number, limit: number): Promise<Eligible[]>
  /**
   * Takes slots under `claim`: `notified` devices (their attempt counted) and `updated` ones (at the version
   * already); the next slot at `nextAt`. Answers the devices notified, with their attempt; empty when the claim
   * was lost.
   */
  notify(
    claim: Claim,
    picks: { notified: number[]; updated: number[] },
    nextAt: number,
    now: number,
  ): Promise<Array<{ deviceIntID: number; attempt: number }>>
  /** Devices past their deadline: queued again for a retry, or timed out. Answers how many. */
  expire(claim: Claim, retries: number, now: number): Promise<number>
  /** Ends a running or paused rollout whose devices are all done as `status`; false when the claim was lost. */
  finish(claim: Claim, status: RolloutStatus, now: number): Promise<boolean>
  /** Stores a `firmware.rollout` event with the counts now (the engine's periodic announcement), under `claim`. */
  announce(claim: Claim, now: number): Promise<boolean>
  /** Renews the claim (a step with nothing to write). */
  renew(claim: Claim): Promise<boolean>

  /** A device's row in the tenant's rollout `rolloutID`. */
  row(tenant: string, rolloutID: string, deviceIntID: number): Promise<RolloutDeviceRow | undefined>
  /** Applies a device's report; false when the row changed meanwhile. */
  report(c: ReportChange, now: number): Promise<boolean>

  /** Notifications and cancels waiting for these devices (their rows' messages not yet sent). */
  pendingFor(deviceIntIDs: readonly number[]): Promise<PendingMessage[]>
  /** Records a notification as delivered (once per attempt): false when it was already, or is no longer due. */
  delivered(m: PendingMessage, now: number): Promise<boolean>
  /** Takes back a delivery recorded at `at` that did not happen (no PUBACK): the message waits again. */
  undelivered(m: PendingMessage, at: number): Promise<boolean>
  /** Records a cancel as sent (once): false when it was already. */
  cancelSent(m: PendingMessage, now: number): Promise<boolean>
  /** The devices of `firmware.device` events stored after `lastID` that may have a message waiting. */
  changesSince(lastID: number, limit: number): Promise<{ lastID: number; deviceIntIDs: number[] }>
  /** Whether an open rollout uses any of the tenant's packages `firmwareIntIDs`. */
  usesFirmware(tenant: string, firmwareIntIDs: readonly number[]): Promise<boolean>
}
