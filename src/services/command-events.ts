/**
 * The `command.status` event of a command's change, as the bus carries it and as the outbox stores it (built before
 * the change is written, so that it is stored in the same transaction).
 */
import type { CommandEvent } from '../kernel/events.ts'
import {
  outboxOf,
  publishStatusOf,
  type CommandInput,
  type CommandRecord,
  type CommandStatus,
  type GroupCommandInput,
  type OutboxInput,
} from '../../store/types.ts'

/**
 * Why a command ended without reaching its device, or was taken back (`statusReason`: fixed English phrases, listed
 * in docs/commands.md; the console translates them): refused before sending (`unsent`), its ttl ran out while queued
 * (`expired`), no acknowledgement in time (`timed_out`), canceled, or a QoS 0 publish that did not go out.
 */
export const STATUS_REASONS = {
  offline: 'device offline, no ttl',
  blocked: 'device blocked',
  deleted: 'device deleted',
  expired: 'ttl ran out',
  timedOut: 'no acknowledgement within the timeout',
  canceled: 'canceled',
  publishFailed: 'publish failed',
} as const

/** The reason of a cancel: `canceled by <user>` when the user is known, else `canceled`. */
export const canceledBy = (user: string | null | undefined): string =>
  user ? `canceled by ${user}` : STATUS_REASONS.canceled

/** The event of a command's change to `to` (`c.statusReason`: the command's reason once changed). */
export function commandEventOf(
  c: Pick<
    CommandRecord,
    | 'tenantID'
    | 'taskID'
    | 'deviceIntID'
    | 'deviceID'
    | 'groupID'
    | 'parentID'
    | 'scheduleID'
    | 'statusReason'
  >,
  to: CommandStatus,
  publishStatus: number,
  at: number,
): CommandEvent {
  return {
    tenantID: c.tenantID,
    taskID: c.taskID,
    deviceIntID: c.deviceIntID,
    deviceID: c.deviceID,
    groupID: c.deviceIntID === null ? c.groupID : null,
    parentID: c.parentID,
    scheduleID: c.scheduleID,
    commandStatus: to,
    statusReason: c.statusReason,
    publishStatus,
    at,
  }
}

/** The outbox event of a new command (in the state it is stored in). */
export function createdEvent(r: CommandInput, at: number): OutboxInput {
  const e = commandEventOf(
    {
      tenantID: r.tenantID,
      taskID: r.taskID,
      deviceIntID: r.deviceIntID,
      deviceID: r.deviceID,
      groupID: r.groupID ?? null,
      parentID: r.parentID ?? null,
      scheduleID: r.scheduleID ?? null,
      statusReason: r.statusReason ?? null,
    },
    r.status,
    publishStatusOf(r.status, r.qos === 1),
    at,
  )
  return outboxOf('command.status', e, at)
}

/** The outbox event of a new group command (its own row: publishStatus 3 with needAck 0, else 1). */
export function groupCreatedEvent(
  g: GroupCommandInput & { scheduleID: number | null },
  at: number,
): OutboxInput {
  const e = commandEventOf(
    {
      ...g,
      deviceIntID: null,
      deviceID: null,
      parentID: null,
      scheduleID: g.scheduleID,
      statusReason: null,
    },
    g.status,
    g.needAck === 0 ? 3 : 1,
    at,
  )
  return outboxOf('command.status', e, at)
}
