/**
 * A command to one device, step by step (src/services/commands.ts wires these to its store, dispatcher and
 * waits): stored and sent when the device is connected here, published once per Idempotency-Key, waited for,
 * canceled while queued, or fetched by an HTTP device's long poll. The rules are in `command-steps.ts`.
 */
import { Invalid } from '../kernel/errors.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import type { CommandRecord, MetaStore } from '../../store/types.ts'
import { newTaskID, type CommandDispatcher, type Identities } from './command-dispatch.ts'
import { canceledBy } from './command-events.ts'
import {
  answerOf,
  cancelable,
  deviceCommandRow,
  deviceOf,
  pollPause,
  replayOf,
  settled,
  type CommandAnswer,
  type DeviceCommandInput,
} from './command-steps.ts'
import type { Sleepers } from './sleepers.ts'
import type { Actor } from './types.ts'

const IDEMPOTENCY_MS = 24 * 3600_000

/** What the steps below work with: the store, the broker, the dispatcher, the clock and the defaults. */
export interface CommandSteps {
  meta: MetaStore
  /** Device identities: ingest's cached directory (the dispatcher's). */
  identities: Identities
  broker: CommandBroker
  dispatcher: CommandDispatcher
  now: () => number
  config: { COMMAND_TIMEOUT: number }
}

/** Stores a command for a device and sends it at once when the device is connected here. */
export async function sendToDevice(
  s: CommandSteps,
  a: Actor,
  input: DeviceCommandInput,
  opts: { scheduleID?: number } = {},
): Promise<CommandAnswer> {
  const device = await deviceOf(s.identities, a.tenant, input)
  if (device.blocked && opts.scheduleID === undefined)
    throw new Invalid({ deviceID: 'the device is blocked' })
  const t = s.now()
  const online = !device.blocked && s.broker.connected(device)
  const plan = { t, taskID: newTaskID(), online, defaultTimeout: s.config.COMMAND_TIMEOUT }
  const row = deviceCommandRow(a, device, input, { ...plan, scheduleID: opts.scheduleID })
  const [cmd] = await s.dispatcher.insert([row])
  if (online) s.dispatcher.publishSent(device, [cmd!])
  return answerOf(cmd!)
}

/**
 * Runs a publish once per Idempotency-Key (within 24 h): a retry answers the first call's answer (409 while that
 * one still runs); a call that fails forgets the key, so a retry runs again. Without a key, just runs it.
 */
export async function publishOnce(
  s: Pick<CommandSteps, 'meta' | 'now'>,
  tenant: string,
  key: string | undefined,
  run: () => Promise<CommandAnswer>,
): Promise<CommandAnswer> {
  if (key) {
    const earlier = replayOf(
      await s.meta.commands.claimKey(tenant, 'device_publish', key, s.now(), IDEMPOTENCY_MS),
    )
    if (earlier) return earlier
  }
  try {
    const answer = await run()
    if (key) await s.meta.commands.saveKey(tenant, 'device_publish', key, JSON.stringify(answer))
    return answer
  } catch (e) {
    if (key) await s.meta.commands.saveKey(tenant, 'device_publish', key, null)
    throw e
  }
}

/** Resolves once the command is delivered, answered or final, or after `seconds` (at once when releasing). */
export async function waitFor(
  meta: MetaStore,
  waiters: Sleepers<string>,
  tenant: string,
  taskID: string,
  seconds: number,
  releasing: () => boolean,
): Promise<CommandRecord | undefined> {
  const c = await meta.commands.get(tenant, taskID)
  if (seconds <= 0 || settled(c) || releasing()) return c
  await waiters.sleep(taskID, seconds * 1000)
  return meta.commands.get(tenant, taskID)
}

/** A device publish's answer: at once, or with `wait` once the command is delivered, answered or final. */
export async function publishAnswer(
  s: CommandSteps,
  waiters: Sleepers<string>,
  a: Actor,
  input: DeviceCommandInput & { wait?: number },
  releasing: () => boolean,
): Promise<CommandAnswer> {
  const answer = await sendToDevice(s, a, input)
  if (!input.wait) return answer
  const waited = await waitFor(s.meta, waiters, a.tenant, answer.taskID, input.wait, releasing)
  return answerOf(waited!)
}

/**
 * Cancels the tenant's queued commands among `taskIDs` (reason `canceled by <user>`, `canceled` when the caller has
 * no name); others are left as they are.
 */
export async function cancelQueued(s: CommandSteps, a: Actor, taskIDs: string[]): Promise<void> {
  const queued = cancelable(await s.meta.commands.byTaskIDs(a.tenant, taskIDs))
  const statusReason = canceledBy(a.username)
  await s.dispatcher.apply(
    queued.map((c) =>
      s.dispatcher.change(c, ['queued'], 'canceled', {
        dispatchAt: null,
        claimedUntil: null,
        statusReason,
      }),
    ),
  )
}

/** Takes a device's queued commands for an HTTP poll (they count as delivered), oldest first. */
export async function takeQueued(s: CommandSteps, deviceIntID: number): Promise<CommandRecord[]> {
  const t = s.now()
  const queued = await s.meta.commands.claimQueued(deviceIntID, t, t + 15_000)
  const moved = await s.meta.commands.transition(
    queued.map((c) =>
      s.dispatcher.change(c, ['queued'], 'delivered', {
        sentAt: t,
        deliveredAt: t,
        dispatchAt: null,
        claimedUntil: null,
      }),
    ),
  )
  s.dispatcher.announce(moved)
  return moved.sort((x, y) => x.id - y.id)
}

/** A long poll: the device's queued commands, waiting up to `waitSeconds` for one when none is queued. */
export async function pollQueued(
  s: CommandSteps,
  pollers: Sleepers<number>,
  device: DeviceIdentity,
  waitSeconds: number,
  stopping: () => boolean,
) {
  let items = await takeQueued(s, device.id)
  const end = s.now() + waitSeconds * 1000
  for (;;) {
    const pause = pollPause(items.length, stopping(), s.now(), end)
    if (pause === undefined) break
    await pollers.sleep(device.id, pause)
    items = await takeQueued(s, device.id)
  }
  return items.map((c) => ({ taskID: c.taskID, topic: c.topic, payload: c.payload }))
}
