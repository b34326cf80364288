/** Devices' state documents (desired, reported, delta) and the jobs that patch many at once (src/services/state.ts). */
import type { OutboxInput } from './webhooks.ts'

/** A device's state document as stored; the JSON fields are texts. A device never written has none. */
export interface StoredState {
  deviceIntID: number
  tenantID: string
  deviceID: string
  /** JSON texts of objects. */
  desired: string
  reported: string
  delta: string
  /** JSON texts: `{"<key>": <epoch ms of its last change>}` of each side's top-level keys. */
  desiredKeys: string
  reportedKeys: string
  version: number
  desiredVersion: number
  reportedVersion: number
  desiredAt: number | null
  reportedAt: number | null
}

/** One document to write: the whole new row, stored only while the stored `version` is still `expected`. */
export interface StateWrite {
  next: StoredState
  /** The version the new row was computed from (0: no row yet). */
  expected: number
  /** The `device.state` event announcing it, stored with it. */
  outbox: OutboxInput
}

/** A group's or a product's desired patch, applied to its devices by the state job loop. */
export interface StateJob {
  id: number
  tenantID: string
  taskID: string
  scope: 'group' | 'product'
  scopeIntID: number
  /** JSON text of the merge patch of `desired`. */
  patch: string
  /** The last device (record id) done: the job goes on after it. */
  afterDevice: number
  total: number
  changed: number
  unchanged: number
  /** Devices deleted or whose result broke a limit. */
  failed: number
  claimedUntil: number
}

export interface StateRepository {
  /** The documents of these devices that have one (any tenant: callers pass ids they resolved). */
  byDevices(deviceIntIDs: readonly number[]): Promise<Map<number, StoredState>>
  /**
   * Writes the documents whose stored version is still their `expected` one, each with its outbox event, in one
   * transaction (a device deleted meanwhile gets none); answers the device ids written.
   */
  write(writes: readonly StateWrite[], now: number): Promise<Set<number>>
  /**
   * The `device.state` events stored after outbox event `afterID`, among the next `limit` events at most: each
   * device and version; `lastID` is where the next call goes on.
   */
  changesSince(
    afterID: number,
    limit: number,
  ): Promise<{ lastID: number; changes: Array<{ deviceIntID: number; version: number }> }>
  /**
   * Records a task (`taskName`, waiting) and its job in one transaction; `total`: the devices in scope now.
   */
  createJob(
    job: Pick<StateJob, 'tenantID' | 'scope' | 'scopeIntID' | 'patch'> & {
      userIntID: number | null
      taskName: string
      taskID: string
      total: number
    },
    now: number,
  ): Promise<StateJob>
  /** Claims the oldest unfinished job whose claim ran out (or none was made) until `until`. */
  claimJob(now: number, until: number): Promise<StateJob | undefined>
  /**
   * The next device ids of a job's scope after `after`, in id order, at most `limit` (the tenant's group members or
   * product devices, gateways included).
   */
  scopeDevices(
    job: Pick<StateJob, 'tenantID' | 'scope' | 'scopeIntID'>,
    after: number,
    limit: number,
  ): Promise<Array<{ id: number; deviceID: string }>>
  /** How many devices a job's scope holds now. */
  scopeCount(job: Pick<StateJob, 'tenantID' | 'scope' | 'scopeIntID'>): Promise<number>
  /** Records a step of a job held until `claimedUntil` (its claim is extended to `until`); false: the claim was lost. */
  stepJob(
    job: Pick<StateJob, 'id' | 'claimedUntil'>,
    step: Pick<StateJob, 'afterDevice' | 'changed' | 'unchanged' | 'failed'>,
    until: number,
  ): Promise<boolean>
  /** Marks a job finished. */
  finishJob(id: number): Promise<void>
}
