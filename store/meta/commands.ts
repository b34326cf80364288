import type { OutboxInput } from './webhooks.ts'

/** The lifecycle state of a command (`partial`: a group command some of whose members failed). */
export type CommandStatus =
  | 'queued'
  | 'sent'
  | 'delivered'
  | 'succeeded'
  | 'failed'
  | 'timed_out'
  | 'expired'
  | 'canceled'
  | 'unsent'
  | 'partial'

/**
 * The publishStatus of each state: 1 issued (queued, sent), 2 acknowledged (delivered, succeeded), 0 failed
 * (the rest). A command that needs no receipt (QoS 0, a group's `needAck` 0) shows 3 while it is not final-failed.
 */
export function publishStatusOf(status: CommandStatus, needsReceipt: boolean): number {
  if (status === 'queued' || status === 'sent') return needsReceipt ? 1 : 3
  if (status === 'delivered' || status === 'succeeded' || status === 'partial')
    return needsReceipt ? 2 : 3
  return 0
}

/** A command to store. */
export interface CommandInput {
  tenantID: string
  taskID: string
  deviceIntID: number
  deviceID: string
  deviceName: string
  /** The topic relative to the device's mountpoint. */
  topic: string
  payload: string
  qos: 0 | 1
  timeoutMs: number
  /** Epoch ms the command expires while queued; null without a ttl. */
  expiresAt: number | null
  /** `sent` when the caller publishes it at once (then `sentAt` and `deadlineAt` are set). */
  status: 'queued' | 'sent' | 'unsent'
  /** Why it is `unsent` (src/services/command-events.ts STATUS_REASONS); null otherwise. */
  statusReason?: string | null
  sentAt?: number | null
  /** When a sent command times out (null: QoS 0, it never does). */
  deadlineAt?: number | null
  /** When a node should try to send it; null: it waits for the device to connect. */
  dispatchAt: number | null
  /** Stored already claimed by the caller until then (it sends the command itself). */
  claimedUntil?: number | null
  scheduleID?: number | null
  /** The group command's row id, for a member of a group publish. */
  parentID?: number | null
  groupIntID?: number | null
  groupID?: string | null
  groupName?: string | null
  publishUser?: string | null
  userIntID?: number | null
}

/** A group's own command (its control log): the payload and, in `task`, the members' counts. */
export interface GroupCommandInput {
  tenantID: string
  taskID: string
  groupIntID: number
  groupID: string
  groupName: string
  topic: string
  payload: string
  qos: 0 | 1
  timeoutMs: number
  expiresAt: number | null
  /** 0: one publish to the group topic, no receipt; 1: one command per member. */
  needAck: 0 | 1
  /** The group row's state: `sent` at once for needAck 0, `queued` while members are dispatched. */
  status: CommandStatus
  scheduleID?: number | null
  publishUser?: string | null
  userIntID?: number | null
}

/** A stored command (a control log row), times as epoch ms. */
export interface CommandRecord {
  id: number
  tenantID: string
  taskID: string
  deviceIntID: number | null
  deviceID: string | null
  deviceName: string | null
  groupIntID: number | null
  groupID: string | null
  groupName: string | null
  topic: string
  payload: string
  qos: 0 | 1
  timeoutMs: number
  commandStatus: CommandStatus
  publishStatus: number
  needAck: number | null
  expiresAt: number | null
  dispatchAt: number | null
  deadlineAt: number | null
  sentAt: number | null
  deliveredAt: number | null
  respondedAt: number | null
  responseCode: number | null
  responsePayload: string | null
  /** Why it ended without reaching its device, or was canceled (STATUS_REASONS); null otherwise. */
  statusReason: string | null
  scheduleID: number | null
  parentID: number | null
  publishUser: string | null
  userIntID: number | null
  msgTime: number
}

/** What a transition sets besides the state (only the fields given). */
export interface TransitionFields {
  sentAt?: number
  deliveredAt?: number
  respondedAt?: number
  deadlineAt?: number | null
  responseCode?: number | null
  responsePayload?: string | null
  dispatchAt?: number | null
  claimedUntil?: number | null
  statusReason?: string | null
}

/** One state change: the command moves to `to` only when it is in one of `from`. */
export interface Transition {
  id: number
  from: readonly CommandStatus[]
  to: CommandStatus
  fields?: TransitionFields
  /** The publishStatus to store with it. */
  publishStatus: number
  /** The event announcing the change: stored (same transaction) only when the command moved. */
  outbox?: OutboxInput
}

/** The outcome counts of a group command's members. */
export interface GroupCounts {
  total: number
  delivered: number
  succeeded: number
  failed: number
  /** Members not yet delivered nor final (queued, sent). */
  pending: number
}

/** A group's counts and how many members settled (final, or delivered and past their timeout). */
export interface GroupProgress extends GroupCounts {
  settled: number
}

/**
 * Commands (control log rows with a lifecycle). Every state change is a compare-and-set in SQL, so several service
 * nodes sharing the database never move one command twice; each method answers the commands it moved.
 */
export interface CommandRepository {
  /** How many commands of all tenants wait to be sent (`queued`) or for their acknowledgement (`sent`). */
  countPending(): Promise<{ queued: number; sent: number }>
  /** Stores commands and the events announcing them (`outbox`) in one transaction, in order; answers them. */
  create(rows: readonly CommandInput[], outbox: readonly OutboxInput[]): Promise<CommandRecord[]>
  /** Stores a group's own command row and the events announcing it, in one transaction. */
  createGroup(row: GroupCommandInput, outbox: readonly OutboxInput[]): Promise<CommandRecord>
  /**
   * A group command's members are written: in one transaction, the group row moves (`group`, a compare-and-set
   * with its event) and, only when it moved, the members and their events are stored. Answers the group row
   * and the members when it moved (nothing when another node had written them).
   */
  fanOut(
    group: Transition,
    members: readonly CommandInput[],
    outbox: readonly OutboxInput[],
  ): Promise<{ group: CommandRecord; members: CommandRecord[] } | undefined>
  /** The command with this taskID in the tenant. */
  get(tenant: string, taskID: string): Promise<CommandRecord | undefined>
  /**
   * Applies transitions in one transaction, with the events (`Transition.outbox`) of those that moved; answers the
   * commands that moved (the others were not in `from`).
   */
  transition(changes: readonly Transition[]): Promise<CommandRecord[]>
  /**
   * Claims up to `limit` queued commands due for dispatch (dispatch_at <= now, not claimed by a live node) until
   * `until`; answers them in id order.
   */
  claimDue(now: number, until: number, limit: number): Promise<CommandRecord[]>
  /** Claims the queued commands of a device (it connected or polled), oldest first, until `until`. */
  claimQueued(
    deviceIntIDs: number | readonly number[],
    now: number,
    until: number,
  ): Promise<CommandRecord[]>
  /** Up to `limit` sent commands past their deadline and queued ones past their expiry, oldest first. */
  overdue(now: number, limit: number): Promise<CommandRecord[]>
  /** Commands of every tenant left `sent` waiting for an acknowledgement (deadline set), oldest first. */
  unacknowledged(limit: number): Promise<CommandRecord[]>
  /** The tenant's device commands among `taskIDs`. */
  byTaskIDs(tenant: string, taskIDs: readonly string[]): Promise<CommandRecord[]>
  /** Group commands (needAck 1) whose members are still moving (their row is not final). */
  openGroups(): Promise<CommandRecord[]>
  /** The members' counts of a group command, and how many settled by `now`. */
  groupCounts(parentID: number, now: number): Promise<GroupProgress>
  /**
   * An idempotency key of the tenant: answers the stored answer of an earlier call with that key (within
   * `maxAgeMs`), or claims the key for this call (answers undefined).
   */
  claimKey(
    tenant: string,
    scope: string,
    key: string,
    now: number,
    maxAgeMs: number,
  ): Promise<{ answer: string | null } | undefined>
  /** Stores the answer of a claimed key (null forgets the claim, so a retry runs again). */
  saveKey(tenant: string, scope: string, key: string, answer: string | null): Promise<void>
}
