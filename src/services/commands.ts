import type { EventBus } from '../kernel/events.ts'
import { Invalid } from '../kernel/errors.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import type { CommandRecord, MetaStore } from '../../store/types.ts'
import {
  CommandDispatcher,
  DISPATCH_BATCH,
  newTaskID,
  type Identities,
} from './command-dispatch.ts'
import {
  answerOf,
  cancelable,
  deviceCommandRow,
  deviceOf,
  pollPause,
  replayOf,
  settled,
  wakesOf,
  type CommandAnswer,
  type DeviceCommandInput,
} from './command-steps.ts'
import { groupCommands } from './group-commands.ts'
import { sleepers, type Sleepers } from './sleepers.ts'
import type { Actor } from './types.ts'
import { errorLog, type Logger } from '../kernel/log.ts'

export { answerOf, type CommandAnswer, type DeviceCommandInput } from './command-steps.ts'

export interface CommandDeps {
  /** Device identities (ingest's cached directory); the store's when not given. */
  identities?: Identities
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  config: { COMMAND_TIMEOUT: number }
  now?: () => number
  log?: (message: string, e?: unknown) => void
  /** Where the default `log` writes; default: the fallback logger. */
  logger?: Logger
}

const IDEMPOTENCY_MS = 24 * 3600_000
/** How often the sweeper and the dispatcher look at the store. */
const SWEEP_MS = 1000
const DISPATCH_MS = 200

/** What the steps below work with: the store, the broker, the dispatcher, the clock and the defaults. */
interface Steps {
  meta: MetaStore
  broker: CommandBroker
  dispatcher: CommandDispatcher
  now: () => number
  config: { COMMAND_TIMEOUT: number }
}

type Guard = (what: string, p: Promise<unknown>) => void

/** Stores a command for a device and sends it at once when the device is connected here. */
export async function sendToDevice(
  s: Steps,
  a: Actor,
  input: DeviceCommandInput,
  opts: { scheduleID?: number } = {},
): Promise<CommandAnswer> {
  const device = await deviceOf(s.meta, a.tenant, input)
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
  s: Pick<Steps, 'meta' | 'now'>,
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

/** Device identities read from the store (when the service is not given ingest's cached directory). */
function storeIdentities(meta: MetaStore): Identities {
  return {
    byId: (id) => meta.ingest.device('id', id),
    byDeviceID: (deviceID) => meta.ingest.device('deviceID', deviceID),
  }
}

/** Resolves once the command is delivered, answered or final, or after `seconds` (at once when releasing). */
async function waitFor(
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
async function publishAnswer(
  s: Steps,
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

/** Cancels the tenant's queued commands among `taskIDs`; others are left as they are. */
async function cancelQueued(s: Steps, tenant: string, taskIDs: string[]): Promise<void> {
  const queued = cancelable(await s.meta.commands.byTaskIDs(tenant, taskIDs))
  await s.dispatcher.apply(
    queued.map((c) =>
      s.dispatcher.change(c, ['queued'], 'canceled', { dispatchAt: null, claimedUntil: null }),
    ),
  )
}

/** Takes a device's queued commands for an HTTP poll (they count as delivered), oldest first. */
async function takeQueued(s: Steps, deviceIntID: number): Promise<CommandRecord[]> {
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
async function pollQueued(
  s: Steps,
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

/** Starts the sweeper and the dispatcher (whose passes follow each other while they find a full batch). */
function startLoops(dispatcher: CommandDispatcher, guard: Guard, closed: () => boolean) {
  let dispatching = false
  // passes follow each other while they find a full batch (a large group), yielding between them
  const drain = async () => {
    while (!closed() && (await dispatcher.dispatchDue()) >= DISPATCH_BATCH)
      await new Promise((r) => setImmediate(r))
  }
  const timers = [
    setInterval(() => guard('sweep', dispatcher.sweep()), SWEEP_MS),
    setInterval(() => {
      if (dispatching) return
      dispatching = true
      guard(
        'dispatch',
        drain().finally(() => (dispatching = false)),
      )
    }, DISPATCH_MS),
  ]
  for (const t of timers) t.unref()
  return timers
}

/** The bus listeners of the service: status changes wake waiters and pollers, connects and responses move commands. */
function listeners(
  events: EventBus,
  dispatcher: CommandDispatcher,
  wake: { waiters: Sleepers<string>; pollers: Sleepers<number> },
  guard: Guard,
) {
  const onStatus = (e: { taskID: string; commandStatus: string; deviceIntID: number | null }) => {
    const w = wakesOf(e)
    if (w.taskID !== undefined) wake.waiters.wake(w.taskID)
    if (w.deviceIntID !== undefined) wake.pollers.wake(w.deviceIntID)
  }
  const onOnline = (e: { id: number }) =>
    guard('delivery on connect', dispatcher.deviceOnline(e.id))
  const onResponse = (e: Parameters<CommandDispatcher['respond']>[0]) =>
    guard('command response', dispatcher.respond(e))
  return {
    on() {
      events.on('command.status', onStatus)
      events.on('device.online', onOnline)
      events.on('device.response', onResponse)
    },
    off() {
      events.off('command.status', onStatus)
      events.off('device.online', onOnline)
      events.off('device.response', onResponse)
    },
  }
}

/**
 * Commands to devices and groups, now: stored before they are published, followed through their lifecycle, and
 * announced on every change (`command.status`). `start()` runs the loops; `close()` stops them.
 */
export function commandService(deps: CommandDeps) {
  const { meta, events, broker } = deps
  const now = deps.now ?? Date.now
  const log = deps.log ?? errorLog(deps.logger, 'commands')
  const identities = deps.identities ?? storeIdentities(meta)
  const logger = deps.logger
  const dispatcher = new CommandDispatcher({ identities, meta, events, broker, now, log, logger })
  const groups = groupCommands({
    meta,
    events,
    broker,
    dispatcher,
    now,
    log,
    defaults: deps.config,
  })
  const s: Steps = { meta, broker, dispatcher, now, config: deps.config }
  /** taskID → callers waiting for it to be delivered, answered or final; deviceIntID → HTTP pollers. */
  const waiters = sleepers<string>()
  const pollers = sleepers<number>()
  const guard: Guard = (what, p) => void p.catch((e) => log(`${what} failed`, e))
  const bus = listeners(events, dispatcher, { waiters, pollers }, guard)
  let timers: NodeJS.Timeout[] = []
  let closed = false
  /** Shutting down: long polls and waits answer at once (so the HTTP server can close). */
  let releasing = false
  const wakeAll = () => [waiters, pollers].forEach((w) => w.wakeAll())

  return {
    toDevice: (a: Actor, input: DeviceCommandInput, opts: { scheduleID?: number } = {}) =>
      sendToDevice(s, a, input, opts),
    toGroup: groups.toGroup,

    /**
     * A device publish as the API answers it: with `wait`, once the command is delivered, answered or final;
     * with an Idempotency-Key, a retry within 24 h answers the first call's answer instead of sending again.
     */
    publish: (a: Actor, input: DeviceCommandInput & { wait?: number }, idempotencyKey?: string) =>
      publishOnce(s, a.tenant, idempotencyKey, () =>
        publishAnswer(s, waiters, a, input, () => releasing),
      ),

    /** Cancels the tenant's queued commands among `taskIDs`; others are left as they are. */
    cancel: (a: Actor, taskIDs: string[]) => cancelQueued(s, a.tenant, taskIDs),

    /**
     * An HTTP device fetches its queued commands (they count as delivered); with `wait` (seconds) it waits for
     * one to arrive when none is queued.
     */
    poll: (device: DeviceIdentity, waitSeconds: number) =>
      pollQueued(s, pollers, device, waitSeconds, () => closed || releasing),

    /** Starts the loops: commands a stopped process left behind first, then the sweeper and the dispatcher. */
    async start() {
      bus.on()
      await dispatcher.recover()
      await groups.resume()
      timers = startLoops(dispatcher, guard, () => closed)
    },

    /**
     * Answers every long poll and wait now, and any later one at once (shutdown, before the HTTP server closes:
     * the loops keep running until `close()`).
     */
    releaseWaiters() {
      releasing = true
      wakeAll()
    },

    close() {
      closed = true
      for (const t of timers) clearInterval(t)
      bus.off()
      groups.close()
      wakeAll()
    },
  }
}

export type CommandService = ReturnType<typeof commandService>
