/**
 * The steps of a command to one device (src/services/commands.ts composes them): which device and topic an input
 * names, the row it is stored as, the idempotency check of a publish, what a cancel may cancel, and the answers.
 */
import { Conflict, Invalid, NotFound } from '../kernel/errors.ts'
import { commandTopic, type MountedDevice } from '../kernel/topics.ts'
import type { CommandInput, CommandRecord } from '../../store/types.ts'
import type { Identities } from './command-dispatch.ts'
import { STATUS_REASONS } from './command-events.ts'
import type { DeviceIdentity } from './ports.ts'
import type { Actor } from './types.ts'

/** A command to one device as a caller (or a schedule) asks for it. */
export interface DeviceCommandInput {
  deviceID?: string
  deviceIntID?: number
  /** Relative topic (default `inbox`), or the device's full topic. */
  topic?: string
  payload: string
  qos?: 0 | 1
  /** Seconds to wait for the acknowledgement (default COMMAND_TIMEOUT). */
  timeout?: number
  /** Seconds an offline device's command waits for it (0: not at all). */
  ttl?: number
}

/** What a device publish answers. */
export type CommandAnswer = Pick<
  CommandRecord,
  'taskID' | 'commandStatus' | 'publishStatus' | 'statusReason'
>

/** The answer of a device publish. */
export function answerOf(c: CommandRecord): CommandAnswer {
  return {
    taskID: c.taskID,
    commandStatus: c.commandStatus,
    publishStatus: c.publishStatus,
    statusReason: c.statusReason,
  }
}

/**
 * The device named by deviceID and/or deviceIntID (each looked up already, undefined when not named or not found):
 * the tenant's one; 404 errors.deviceID when none, of another tenant, or the two name different devices.
 */
export function pickDevice<D extends Pick<DeviceIdentity, 'id' | 'tenantID'>>(
  tenant: string,
  byID: D | undefined,
  byIntID: D | undefined,
): D {
  const d = byID ?? byIntID
  const mismatch = byID && byIntID && byID.id !== byIntID.id
  if (!d || d.tenantID !== tenant || mismatch) throw new NotFound({ deviceID: 'no such device' })
  return d
}

/**
 * The tenant's device named by deviceID and/or deviceIntID, from `identities` (ingest's cached directory: no
 * store read for a known device); 404 errors.deviceID otherwise.
 */
export async function deviceOf(
  identities: Identities,
  tenant: string,
  input: DeviceCommandInput,
): Promise<DeviceIdentity> {
  const byID =
    input.deviceID === undefined ? undefined : await identities.byDeviceID(input.deviceID)
  const byIntID =
    input.deviceIntID === undefined ? undefined : await identities.byId(input.deviceIntID)
  return pickDevice(tenant, byID, byIntID)
}

/** A command's topic relative to the device (kernel/topics.ts commandTopic); FORM_INVALID when it has none. */
export function placeCommandTopic(device: MountedDevice, topic: string): string {
  const rel = commandTopic(device, topic)
  if (rel === undefined)
    throw new Invalid({
      topic: 'a topic without wildcards, relative or under the device',
    })
  return rel
}

/** What a device command's row takes of its device: its ids, name, blocked flag and mountpoint. */
export type CommandTarget = MountedDevice &
  Pick<DeviceIdentity, 'id' | 'deviceID' | 'deviceName' | 'blocked'>

/** What a new device command is stored as, at `t`, when sent through the broker at once (`online`) or not. */
export interface DeviceCommandPlan {
  t: number
  taskID: string
  online: boolean
  /** Seconds a command waits for its acknowledgement when the input does not say (COMMAND_TIMEOUT). */
  defaultTimeout: number
  scheduleID?: number
}

/**
 * The row a device command is stored as: `sent` when the device is connected here (with its deadline when QoS 1),
 * `queued` when it may wait for the device (a ttl, not blocked), `unsent` otherwise (with its reason: blocked, or
 * offline without a ttl); the topic placed under the device (FORM_INVALID errors.topic when it cannot be).
 */
export function deviceCommandRow(
  a: Actor,
  device: CommandTarget,
  input: DeviceCommandInput,
  p: DeviceCommandPlan,
): CommandInput {
  const { t, online } = p
  const qos = input.qos ?? 1
  const timeoutMs = (input.timeout ?? p.defaultTimeout) * 1000
  const ttlMs = (input.ttl ?? 0) * 1000
  const status = online ? 'sent' : ttlMs > 0 && !device.blocked ? 'queued' : 'unsent'
  return {
    tenantID: a.tenant,
    taskID: p.taskID,
    deviceIntID: device.id,
    deviceID: device.deviceID,
    deviceName: device.deviceName,
    topic: placeCommandTopic(device, input.topic ?? 'inbox'),
    payload: input.payload,
    qos,
    timeoutMs,
    expiresAt: ttlMs > 0 ? t + ttlMs : null,
    status,
    statusReason:
      status !== 'unsent' ? null : device.blocked ? STATUS_REASONS.blocked : STATUS_REASONS.offline,
    sentAt: online ? t : null,
    deadlineAt: online && qos === 1 ? t + timeoutMs : null,
    dispatchAt: null,
    scheduleID: p.scheduleID ?? null,
    publishUser: a.username ?? null,
    userIntID: a.userIntID,
  }
}

/**
 * The idempotency check of a publish: with no earlier call under the key (it is claimed for this one), undefined;
 * an earlier call's answer when it finished; 409 errors['Idempotency-Key'] while it is still running.
 */
export function replayOf(
  earlier: { answer: string | null } | undefined,
): CommandAnswer | undefined {
  if (!earlier) return undefined
  if (earlier.answer) {
    const answer = JSON.parse(earlier.answer) as CommandAnswer
    // an answer stored before statusReason was answered has none
    return { ...answer, statusReason: answer.statusReason ?? null }
  }
  throw new Conflict({
    'Idempotency-Key': 'a call with this key is still running',
  })
}

/** The commands a cancel moves: only queued ones (the others are left as they are). */
export function cancelable<C extends Pick<CommandRecord, 'commandStatus'>>(
  commands: readonly C[],
): C[] {
  return commands.filter((c) => c.commandStatus === 'queued')
}

/** Whether a waited-for command is done waiting for: gone, or neither queued nor sent (delivered or final). */
export function settled(c: Pick<CommandRecord, 'commandStatus'> | undefined): boolean {
  return !c || (c.commandStatus !== 'queued' && c.commandStatus !== 'sent')
}

/**
 * Whom a `command.status` event wakes: the callers waiting for its task once it is no longer queued or sent, the
 * HTTP pollers of its device when it became queued.
 */
export function wakesOf(e: { taskID: string; commandStatus: string; deviceIntID: number | null }): {
  taskID?: string
  deviceIntID?: number
} {
  const out: { taskID?: string; deviceIntID?: number } = {}
  if (e.commandStatus !== 'queued' && e.commandStatus !== 'sent') out.taskID = e.taskID
  if (e.commandStatus === 'queued' && e.deviceIntID !== null) out.deviceIntID = e.deviceIntID
  return out
}

/**
 * How long a long poll that found nothing sleeps before it looks again (at most a second: another node may have
 * queued one); undefined when it answers now (it found some, the service is stopping, or its time is up).
 */
export function pollPause(
  found: number,
  stopping: boolean,
  now: number,
  end: number,
): number | undefined {
  if (found || stopping || now >= end) return undefined
  return Math.min(1000, Math.max(0, end - now))
}
