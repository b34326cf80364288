import type { EventBus } from '../kernel/events.ts'
import { Conflict, Invalid, NotFound } from '../kernel/errors.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import { commandTopic } from '../kernel/topics.ts'
import type { CommandRecord, MetaStore } from '../../store/types.ts'
import {
  CommandDispatcher,
  DISPATCH_BATCH,
  newTaskID,
  type Identities,
} from './command-dispatch.ts'
import { groupCommands } from './group-commands.ts'
import type { Actor } from './types.ts'
import { errorLog, type Logger } from '../kernel/log.ts'

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
export interface CommandAnswer {
  taskID: string
  commandStatus: string
  publishStatus: number
}

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

/**
 * Commands to devices and groups, now: stored before they are published, followed through their lifecycle, and
 * announced on every change (`command.status`). `start()` runs the loops; `close()` stops them.
 */
export function commandService(deps: CommandDeps) {
  const { meta, events, broker } = deps
  const now = deps.now ?? Date.now
  const log = deps.log ?? errorLog(deps.logger, 'commands')
  const identities: Identities = deps.identities ?? {
    byId: (id) => meta.ingest.device('id', id),
    byDeviceID: (deviceID) => meta.ingest.device('deviceID', deviceID),
  }
  const dispatcher = new CommandDispatcher({
    identities,
    meta,
    events,
    broker,
    now,
    log,
    logger: deps.logger,
  })
  const groups = groupCommands({
    meta,
    events,
    broker,
    dispatcher,
    now,
    log,
    defaults: deps.config,
  })
  /** taskID → callers waiting for it to be delivered, answered or final. */
  const waiters = new Map<string, Set<() => void>>()
  /** deviceIntID → HTTP pollers waiting for a queued command. */
  const pollers = new Map<number, Set<() => void>>()
  const wake = <K>(map: Map<K, Set<() => void>>, key: K) => {
    for (const f of map.get(key) ?? []) f()
  }
  const timers: NodeJS.Timeout[] = []
  let closed = false
  /** Shutting down: long polls and waits answer at once (so the HTTP server can close). */
  let releasing = false

  const onStatus = (e: { taskID: string; commandStatus: string; deviceIntID: number | null }) => {
    if (e.commandStatus !== 'queued' && e.commandStatus !== 'sent') wake(waiters, e.taskID)
    if (e.commandStatus === 'queued' && e.deviceIntID !== null) wake(pollers, e.deviceIntID)
  }
  const guard = (what: string, p: Promise<unknown>) => void p.catch((e) => log(`${what} failed`, e))
  const onOnline = (e: { id: number }) =>
    guard('delivery on connect', dispatcher.deviceOnline(e.id))
  const onResponse = (e: Parameters<CommandDispatcher['respond']>[0]) =>
    guard('command response', dispatcher.respond(e))

  /** The tenant's device named by deviceID and/or deviceIntID; 404 errors.deviceID otherwise. */
  async function deviceOf(tenant: string, input: DeviceCommandInput): Promise<DeviceIdentity> {
    const byID =
      input.deviceID === undefined
        ? undefined
        : await meta.ingest.device('deviceID', input.deviceID)
    const byIntID =
      input.deviceIntID === undefined
        ? undefined
        : await meta.ingest.device('id', input.deviceIntID)
    const d = byID ?? byIntID
    const mismatch = byID && byIntID && byID.id !== byIntID.id
    if (!d || d.tenantID !== tenant || mismatch) throw new NotFound({ deviceID: 'no such device' })
    return d
  }

  /** Stores a command for a device and sends it at once when the device is connected here. */
  async function toDevice(
    a: Actor,
    input: DeviceCommandInput,
    opts: { scheduleID?: number } = {},
  ): Promise<CommandAnswer> {
    const device = await deviceOf(a.tenant, input)
    if (device.blocked && opts.scheduleID === undefined)
      throw new Invalid({ deviceID: 'the device is blocked' })
    const t = now()
    const qos = input.qos ?? 1
    const timeoutMs = (input.timeout ?? deps.config.COMMAND_TIMEOUT) * 1000
    const ttlMs = (input.ttl ?? 0) * 1000
    const online = !device.blocked && broker.connected(device)
    const status = online ? 'sent' : ttlMs > 0 && !device.blocked ? 'queued' : 'unsent'
    const [cmd] = await dispatcher.insert([
      {
        tenantID: a.tenant,
        taskID: newTaskID(),
        deviceIntID: device.id,
        deviceID: device.deviceID,
        deviceName: device.deviceName,
        topic: placeCommandTopic(device, input.topic ?? 'inbox'),
        payload: input.payload,
        qos,
        timeoutMs,
        expiresAt: ttlMs > 0 ? t + ttlMs : null,
        status,
        sentAt: online ? t : null,
        deadlineAt: online && qos === 1 ? t + timeoutMs : null,
        dispatchAt: null,
        scheduleID: opts.scheduleID ?? null,
        publishUser: a.username ?? null,
        userIntID: a.userIntID,
      },
    ])
    if (online) dispatcher.publishSent(device, [cmd!])
    return answerOf(cmd!)
  }

  const wakeAll = () => {
    for (const set of [...waiters.values(), ...pollers.values()]) for (const f of [...set]) f()
  }

  /** Resolves once the command is delivered, answered or final, or after `seconds`. */
  async function wait(
    tenant: string,
    taskID: string,
    seconds: number,
  ): Promise<CommandRecord | undefined> {
    const settled = (c: CommandRecord | undefined) =>
      !c || (c.commandStatus !== 'queued' && c.commandStatus !== 'sent')
    const c = await meta.commands.get(tenant, taskID)
    if (seconds <= 0 || settled(c) || releasing) return c
    await sleepUnless(waiters, taskID, seconds * 1000)
    return meta.commands.get(tenant, taskID)
  }

  return {
    toDevice,
    toGroup: groups.toGroup,

    /**
     * A device publish as the API answers it: with `wait`, once the command is delivered, answered or final;
     * with an Idempotency-Key, a retry within 24 h answers the first call's answer instead of sending again.
     */
    async publish(
      a: Actor,
      input: DeviceCommandInput & { wait?: number },
      idempotencyKey?: string,
    ): Promise<CommandAnswer> {
      if (idempotencyKey) {
        const earlier = await meta.commands.claimKey(
          a.tenant,
          'device_publish',
          idempotencyKey,
          now(),
          IDEMPOTENCY_MS,
        )
        if (earlier) {
          if (earlier.answer) return JSON.parse(earlier.answer) as CommandAnswer
          throw new Conflict({
            'Idempotency-Key': 'a call with this key is still running',
          })
        }
      }
      try {
        let answer = await toDevice(a, input)
        if (input.wait) answer = answerOf((await wait(a.tenant, answer.taskID, input.wait))!)
        if (idempotencyKey)
          await meta.commands.saveKey(
            a.tenant,
            'device_publish',
            idempotencyKey,
            JSON.stringify(answer),
          )
        return answer
      } catch (e) {
        if (idempotencyKey)
          await meta.commands.saveKey(a.tenant, 'device_publish', idempotencyKey, null)
        throw e
      }
    },

    /** Cancels the tenant's queued commands among `taskIDs`; others are left as they are. */
    async cancel(a: Actor, taskIDs: string[]): Promise<void> {
      const queued = (await meta.commands.byTaskIDs(a.tenant, taskIDs)).filter(
        (c) => c.commandStatus === 'queued',
      )
      await dispatcher.apply(
        queued.map((c) =>
          dispatcher.change(c, ['queued'], 'canceled', { dispatchAt: null, claimedUntil: null }),
        ),
      )
    },

    /**
     * An HTTP device fetches its queued commands (they count as delivered); with `wait` (seconds) it waits for
     * one to arrive when none is queued.
     */
    async poll(device: DeviceIdentity, waitSeconds: number) {
      const take = async () => {
        const t = now()
        const queued = await meta.commands.claimQueued(device.id, t, t + 15_000)
        const moved = await meta.commands.transition(
          queued.map((c) =>
            dispatcher.change(c, ['queued'], 'delivered', {
              sentAt: t,
              deliveredAt: t,
              dispatchAt: null,
              claimedUntil: null,
            }),
          ),
        )
        dispatcher.announce(moved)
        return moved.sort((x, y) => x.id - y.id)
      }
      let items = await take()
      const end = now() + waitSeconds * 1000
      while (!items.length && !closed && !releasing && now() < end) {
        // also look again every second: another node may have queued one
        await sleepUnless(pollers, device.id, Math.min(1000, Math.max(0, end - now())))
        items = await take()
      }
      return items.map((c) => ({ taskID: c.taskID, topic: c.topic, payload: c.payload }))
    },

    /** Starts the loops: commands a stopped process left behind first, then the sweeper and the dispatcher. */
    async start() {
      events.on('command.status', onStatus)
      events.on('device.online', onOnline)
      events.on('device.response', onResponse)
      await dispatcher.recover()
      await groups.resume()
      let dispatching = false
      // passes follow each other while they find a full batch (a large group), yielding between them
      const drain = async () => {
        while (!closed && (await dispatcher.dispatchDue()) >= DISPATCH_BATCH)
          await new Promise((r) => setImmediate(r))
      }
      timers.push(
        setInterval(() => guard('sweep', dispatcher.sweep()), SWEEP_MS),
        setInterval(() => {
          if (dispatching) return
          dispatching = true
          guard(
            'dispatch',
            drain().finally(() => (dispatching = false)),
          )
        }, DISPATCH_MS),
      )
      for (const t of timers) t.unref()
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
      events.off('command.status', onStatus)
      events.off('device.online', onOnline)
      events.off('device.response', onResponse)
      groups.close()
      wakeAll()
    },
  }
}

export type CommandService = ReturnType<typeof commandService>

/** The answer of a device publish. */
export function answerOf(c: CommandRecord): CommandAnswer {
  return { taskID: c.taskID, commandStatus: c.commandStatus, publishStatus: c.publishStatus }
}

/** A command's topic relative to the device (kernel/topics.ts commandTopic); FORM_INVALID when it has none. */
function placeCommandTopic(device: DeviceIdentity, topic: string): string {
  const rel = commandTopic(device, topic)
  if (rel === undefined)
    throw new Invalid({
      topic: 'a topic without wildcards, relative or under the device',
    })
  return rel
}

/** Resolves after `ms`, or earlier when `wake(map, key)` is called for `key` (each sleeper registers itself). */
function sleepUnless<K>(map: Map<K, Set<() => void>>, key: K, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const set = map.get(key) ?? new Set()
    map.set(key, set)
    const done = () => {
      clearTimeout(timer)
      set.delete(done)
      if (!set.size) map.delete(key)
      resolve()
    }
    const timer = setTimeout(done, ms)
    set.add(done)
  })
}
