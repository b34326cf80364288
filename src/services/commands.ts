/**
 * Commands to devices and groups: the service composes the steps of a device command (`device-commands.ts`), of a
 * group command (`group-commands.ts`) and the dispatcher (`command-dispatch.ts`), and runs their loops and waits.
 */
import type { EventBus } from '../kernel/events.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import type { MetaStore } from '../../store/types.ts'
import { CommandDispatcher, DISPATCH_BATCH, type Identities } from './command-dispatch.ts'
import { wakesOf, type DeviceCommandInput } from './command-steps.ts'
import {
  cancelQueued,
  pollQueued,
  publishAnswer,
  publishOnce,
  sendToDevice,
  type CommandSteps,
} from './device-commands.ts'
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

type Guard = (what: string, p: Promise<unknown>) => void

/** Device identities read from the store (when the service is not given ingest's cached directory). */
export function storeIdentities(meta: MetaStore): Identities {
  return {
    byId: (id) => meta.ingest.device('id', id),
    byDeviceID: (deviceID) => meta.ingest.device('deviceID', deviceID),
  }
}

/** How often the sweeper and the dispatcher look at the store. */
const SWEEP_MS = 1000
const DISPATCH_MS = 200

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
  const s: CommandSteps = { meta, identities, broker, dispatcher, now, config: deps.config }
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
    cancel: (a: Actor, taskIDs: string[]) => cancelQueued(s, a, taskIDs),

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
