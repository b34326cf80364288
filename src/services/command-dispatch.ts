/**
 * Sends stored commands and follows each through its lifecycle: queued → sent → delivered (the device's PUBACK on
 * the embedded broker) → succeeded/failed (its response message), or timed_out / expired / canceled / unsent.
 * Every change is a compare-and-set in the store (so several nodes never move one command twice) followed by a
 * `command.status` event. The loops are rows claimed in libSQL, not in-process timers alone: a queued command is
 * sent by whichever node claims it, and a node that dies leaves its claims to expire.
 */
import { randomUUID } from 'node:crypto'
import type { EventBus } from '../kernel/events.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import {
  outboxOf,
  publishStatusOf,
  type CommandInput,
  type CommandRecord,
  type CommandStatus,
  type MetaStore,
  type Transition,
  type TransitionFields,
} from '../../store/types.ts'
import type { Logger } from '../kernel/log.ts'
import { auditOf, createdAs, detached, together, type AuditScope } from '../kernel/audit.ts'
import { commandEventOf, createdEvent, STATUS_REASONS } from './command-events.ts'

/** How long a node's claim on a command it is sending lasts beyond the command's timeout. */
const CLAIM_MS = 5_000
/** Queued commands a dispatcher pass claims at most. */
export const DISPATCH_BATCH = 250
/** Overdue commands a sweep pass moves at most. */
const SWEEP_BATCH = 500

/** Device identities by record id or deviceID (ingest's cached directory, or the store). */
export interface Identities {
  byId(id: number): Promise<DeviceIdentity | undefined>
  byDeviceID(deviceID: string): Promise<DeviceIdentity | undefined>
}

export interface DispatchDeps {
  identities: Identities
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  /** Epoch ms now (an injected clock in tests). */
  now: () => number
  log: (message: string, e?: unknown) => void
  /** Where `info` lines go (a command timing out); none when not given. */
  logger?: Logger
}

/** The message a device receives: `{"data_type":"request","task_id":…,"data":<payload>}` (JSON kept as JSON). */
export function envelope(taskID: string, payload: string): Buffer {
  let data: unknown = payload
  try {
    data = JSON.parse(payload)
  } catch {
    // not JSON: sent as a string
  }
  return Buffer.from(JSON.stringify({ data_type: 'request', task_id: taskID, data }))
}

export const newTaskID = () => randomUUID()

interface PendingChanges {
  changes: readonly Transition[]
  resolve(moved: Array<CommandRecord | undefined>): void
  reject(e: unknown): void
  /** The audit scope of the caller (a cancel through the API), written by the shared transaction. */
  audit?: AuditScope
}

export class CommandDispatcher {
  private pending: PendingChanges[] = []
  private flushing = false
  private inserts: Array<{
    rows: readonly CommandInput[]
    resolve(r: CommandRecord[]): void
    reject(e: unknown): void
    audit?: AuditScope
  }> = []
  private inserting = false
  private online = new Set<number>()
  private onlineFlush: Promise<void> | undefined

  constructor(private readonly d: DispatchDeps) {}

  /**
   * Announces moved commands on the bus (after their commit; their outbox events were stored with them). A command
   * that timed out is logged (info).
   */
  announce(moved: readonly CommandRecord[]) {
    const at = this.d.now()
    for (const c of moved) {
      this.d.events.emit('command.status', commandEventOf(c, c.commandStatus, c.publishStatus, at))
      if (c.commandStatus === 'timed_out')
        this.d.logger?.info(
          { component: 'commands', taskID: c.taskID, deviceID: c.deviceID },
          'command timed out',
        )
    }
  }

  /** One compare-and-set with the event announcing it (stored with it when it moves). */
  change(
    c: CommandRecord,
    from: readonly CommandStatus[],
    to: CommandStatus,
    fields: TransitionFields = {},
  ): Transition {
    const publishStatus = statusOf(c, to)
    const statusReason = fields.statusReason === undefined ? c.statusReason : fields.statusReason
    const event = commandEventOf({ ...c, statusReason }, to, publishStatus, this.d.now())
    return {
      id: c.id,
      from,
      to,
      fields,
      publishStatus,
      outbox: outboxOf('command.status', event, 0),
    }
  }

  /** Moves one command and announces it; answers it when it moved. */
  async move(
    c: CommandRecord,
    from: readonly CommandStatus[],
    to: CommandStatus,
    fields: TransitionFields = {},
  ): Promise<CommandRecord | undefined> {
    const [moved] = await this.apply([this.change(c, from, to, fields)])
    return moved
  }

  /**
   * Applies transitions and announces those that moved. Transitions asked for in the same turn of the event loop
   * share one transaction (a group's thousands of PUBACKs cost a few writes, not one each); answers, per change,
   * the command when it moved.
   */
  apply(changes: readonly Transition[]): Promise<Array<CommandRecord | undefined>> {
    if (!changes.length) return Promise.resolve([])
    return new Promise((resolve, reject) => {
      this.pending.push({ changes, resolve, reject, audit: auditOf() })
      if (!this.flushing) {
        this.flushing = true
        // the flush serves every caller of this turn: it runs in none's audit scope, and writes each one's
        setImmediate(() => void detached(() => this.flush()))
      }
    })
  }

  private async flush() {
    while (this.pending.length) {
      const batch = this.pending
      this.pending = []
      try {
        const moved = await together(
          batch.map((b) => b.audit),
          () => this.d.meta.commands.transition(batch.flatMap((b) => b.changes)),
        )
        const byID = new Map(moved.map((m) => [m.id, m]))
        this.announce(moved)
        for (const b of batch) b.resolve(b.changes.map((c) => byID.get(c.id)))
      } catch (e) {
        for (const b of batch) b.reject(e)
      }
    }
    this.flushing = false
  }

  /**
   * Stores commands and announces them. Commands stored in the same turn of the event loop share one transaction
   * (a thousand device publishes a second cost tens of writes, not a thousand).
   */
  insert(rows: readonly CommandInput[]): Promise<CommandRecord[]> {
    return new Promise((resolve, reject) => {
      const audit = auditOf()
      createdAs(
        audit,
        'task_id',
        rows.map((r) => r.taskID),
      )
      this.inserts.push({ rows, resolve, reject, audit })
      if (!this.inserting) {
        this.inserting = true
        setImmediate(() => void detached(() => this.flushInserts()))
      }
    })
  }

  private async flushInserts() {
    while (this.inserts.length) {
      const batch = this.inserts
      this.inserts = []
      try {
        const rows = batch.flatMap((b) => b.rows)
        const t = this.d.now()
        const stored = await together(
          batch.map((b) => b.audit),
          () =>
            this.d.meta.commands.create(
              rows,
              rows.map((r) => createdEvent(r, t)),
            ),
        )
        this.announce(stored)
        let at = 0
        for (const b of batch) {
          b.resolve(stored.slice(at, at + b.rows.length))
          at += b.rows.length
        }
      } catch (e) {
        for (const b of batch) b.reject(e)
      }
    }
    this.inserting = false
  }

  /** Publishes commands stored as `sent` (a device connected here) and follows them. */
  publishSent(device: DeviceIdentity, sent: readonly CommandRecord[]) {
    for (const c of sent)
      void this.follow(device, c).catch((e) => this.d.log('command follow-up failed', e))
  }

  /**
   * Sends claimed queued commands of one device in order: each becomes `sent` (one transaction for all), then
   * they are published in that order; PUBACKs and timeouts are followed in the background.
   */
  sendAll(device: DeviceIdentity, commands: readonly CommandRecord[]): Promise<void> {
    return this.sendMany([[device, commands]])
  }

  /** sendAll for several devices with one write: their `sent` transitions commit together. */
  private async sendMany(
    lists: ReadonlyArray<readonly [DeviceIdentity, readonly CommandRecord[]]>,
  ): Promise<void> {
    const now = this.d.now()
    const deviceOf = new Map<number, DeviceIdentity>()
    const changes: Transition[] = []
    for (const [device, commands] of lists)
      for (const c of commands) {
        deviceOf.set(c.id, device)
        changes.push(
          this.change(c, ['queued'], 'sent', {
            sentAt: now,
            deadlineAt: c.qos === 1 ? now + c.timeoutMs : null,
            dispatchAt: null,
            claimedUntil: null,
          }),
        )
      }
    if (!changes.length) return
    const sent = await this.d.meta.commands.transition(changes)
    this.announce(sent)
    for (const c of sent)
      void this.follow(deviceOf.get(c.id)!, c).catch((e) =>
        this.d.log('command follow-up failed', e),
      )
  }

  /** Publishes a sent command and records what became of it. */
  private async follow(device: DeviceIdentity, c: CommandRecord) {
    const ok = await this.d.broker.publish(device, c.topic, envelope(c.taskID, c.payload), {
      qos: c.qos,
      timeoutMs: c.timeoutMs,
    })
    const now = this.d.now()
    if (c.qos === 0) {
      if (!ok)
        await this.move(c, ['sent'], 'unsent', { statusReason: STATUS_REASONS.publishFailed })
      return
    }
    if (ok && this.d.broker.confirmsDelivery) {
      await this.move(c, ['sent'], 'delivered', { deliveredAt: now, deadlineAt: null })
      return
    }
    if (ok) return // an external broker took it: the response message (or the deadline) decides
    if (c.expiresAt !== null && c.expiresAt > now && !this.d.broker.connected(device)) {
      // the device went away before acknowledging: with a ttl it gets the command again on reconnect
      await this.move(c, ['sent'], 'queued', { deadlineAt: null, dispatchAt: null })
      return
    }
    await this.move(c, ['sent'], 'timed_out', {
      deadlineAt: null,
      statusReason: STATUS_REASONS.timedOut,
    })
  }

  /**
   * A device connected: its queued commands go out, oldest first. Devices connecting in the same turn of the event
   * loop are looked up together (a storm of connects costs a few statements, not one each).
   */
  deviceOnline(deviceIntID: number): Promise<void> {
    this.online.add(deviceIntID)
    this.onlineFlush ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const ids = [...this.online]
      this.online.clear()
      this.onlineFlush = undefined
      const now = this.d.now()
      const queued = await this.d.meta.commands.claimQueued(ids, now, now + CLAIM_MS)
      const byDevice = new Map<number, CommandRecord[]>()
      for (const c of queued)
        byDevice.set(c.deviceIntID!, [...(byDevice.get(c.deviceIntID!) ?? []), c])
      await Promise.all(
        [...byDevice].map(async ([id, list]) => {
          const device = await this.d.identities.byId(id)
          if (device && !device.blocked) await this.sendAll(device, list)
          else await this.release(list)
        }),
      )
    })
    return this.onlineFlush
  }

  /** Gives claimed queued commands back (their device cannot take them now). */
  private async release(list: readonly CommandRecord[]) {
    await this.d.meta.commands.transition(
      list.map((c) => ({
        id: c.id,
        from: ['queued'] as const,
        to: 'queued' as const,
        publishStatus: statusOf(c, 'queued'),
        fields: { claimedUntil: null },
      })),
    )
  }

  /**
   * One pass over queued commands due for dispatch (group members, commands left by a stopped node): each is sent
   * when its device is connected here, waits for the device when it has a ttl, and is `unsent` otherwise.
   */
  async dispatchDue(): Promise<number> {
    const now = this.d.now()
    const due = await this.d.meta.commands.claimDue(now, now + CLAIM_MS, DISPATCH_BATCH)
    const byDevice = new Map<number, CommandRecord[]>()
    const waiting: Transition[] = []
    const waitingFor = new Set<DeviceIdentity>()
    const unsent: Transition[] = []
    for (const c of due) {
      const device =
        c.deviceIntID === null ? undefined : await this.d.identities.byId(c.deviceIntID)
      if (device && !device.blocked && this.d.broker.connected(device)) {
        const list = byDevice.get(device.id) ?? []
        list.push(c)
        byDevice.set(device.id, list)
      } else if (device && !device.blocked && c.expiresAt !== null && c.expiresAt > now) {
        waitingFor.add(device)
        waiting.push({
          id: c.id,
          from: ['queued'],
          to: 'queued',
          publishStatus: statusOf(c, 'queued'),
          fields: { dispatchAt: null, claimedUntil: null },
        })
      } else
        unsent.push(
          this.change(c, ['queued'], 'unsent', {
            dispatchAt: null,
            claimedUntil: null,
            statusReason: unsentReason(device, c),
          }),
        )
    }
    await this.d.meta.commands.transition(waiting)
    // a device that connected while this pass held its commands found them claimed: send them now
    for (const device of waitingFor)
      if (this.d.broker.connected(device))
        void this.deviceOnline(device.id).catch((e) => this.d.log('dispatch failed', e))
    this.announce(await this.d.meta.commands.transition(unsent))
    // all devices' `sent` transitions in one write (one commit), not one round trip each
    const lists: Array<[DeviceIdentity, CommandRecord[]]> = []
    for (const [deviceIntID, list] of byDevice)
      lists.push([(await this.d.identities.byId(deviceIntID))!, list])
    await this.sendMany(lists)
    return due.length
  }

  /** Commands past their deadline (timed_out) or expiry (expired), a batch at a time. */
  async sweep(): Promise<void> {
    for (;;) {
      const due = await this.d.meta.commands.overdue(this.d.now(), SWEEP_BATCH)
      if (!due.length) return
      const changes = due.map((c) =>
        c.commandStatus === 'sent'
          ? this.change(c, ['sent'], 'timed_out', {
              deadlineAt: null,
              statusReason: STATUS_REASONS.timedOut,
            })
          : this.change(c, ['queued'], 'expired', {
              dispatchAt: null,
              claimedUntil: null,
              statusReason: STATUS_REASONS.expired,
            }),
      )
      this.announce(await this.d.meta.commands.transition(changes))
      if (due.length < SWEEP_BATCH) return
    }
  }

  /**
   * At start-up: commands left `sent` without an acknowledgement by a stopped process go back to `queued` while
   * their ttl runs (they are sent again, at least once, when their device is connected); the others time out at
   * their deadline (the sweep).
   */
  async recover(): Promise<number> {
    let requeued = 0
    const now = this.d.now()
    const left = await this.d.meta.commands.unacknowledged(100_000)
    const again = left.filter((c) => c.expiresAt !== null && c.expiresAt > now)
    for (let i = 0; i < again.length; i += SWEEP_BATCH) {
      const changes = again.slice(i, i + SWEEP_BATCH).map((c) =>
        this.change(c, ['sent'], 'queued', {
          deadlineAt: null,
          dispatchAt: now,
          claimedUntil: null,
        }),
      )
      const moved = await this.d.meta.commands.transition(changes)
      requeued += moved.length
      this.announce(moved)
    }
    await this.sweep()
    return requeued
  }

  /** A device's response message: sent, delivered (or timed out) → succeeded (code < 400) or failed. */
  async respond(e: {
    tenantID: string
    deviceIntID: number
    taskID: string
    code: number | null
    payload: string
  }): Promise<CommandRecord | undefined> {
    const c = await this.d.meta.commands.get(e.tenantID, e.taskID)
    if (!c || c.deviceIntID !== e.deviceIntID) return undefined
    const now = this.d.now()
    const failed = e.code !== null && e.code >= 400
    return this.move(c, ['sent', 'delivered', 'timed_out'], failed ? 'failed' : 'succeeded', {
      respondedAt: now,
      deliveredAt: c.deliveredAt ?? now,
      deadlineAt: null,
      responseCode: e.code,
      responsePayload: e.payload,
      // a late answer to a timed out command: it reached the device after all
      statusReason: null,
    })
  }
}

/**
 * Why a due command is not sent (its device is gone, blocked, or offline with no ttl left to wait): deleted, blocked,
 * `ttl ran out` when it had one, `device offline, no ttl` otherwise.
 */
function unsentReason(
  device: Pick<DeviceIdentity, 'blocked'> | undefined,
  c: Pick<CommandRecord, 'expiresAt'>,
): string {
  if (!device) return STATUS_REASONS.deleted
  if (device.blocked) return STATUS_REASONS.blocked
  return c.expiresAt === null ? STATUS_REASONS.offline : STATUS_REASONS.expired
}

/** The publishStatus a command shows in state `to`. */
export function statusOf(c: { qos: number; needAck?: number | null }, to: CommandStatus): number {
  return publishStatusOf(to, c.qos === 1 && c.needAck !== 0)
}
