import {
  outboxOf,
  type ConnectionState,
  type ConnectLogFold,
  type ConnectLogInput,
  type MetaStore,
  type OutboxInput,
} from '../store/types.ts'
import type { DeviceRef, EventBus } from '../src/kernel/events.ts'
import type { DeviceIdentity } from './types.ts'
import type { RefusalGuard } from './refusals.ts'
import type { Logger } from '../src/kernel/log.ts'

/** connect_logs.connect_status. */
export const CONNECT_STATUS = { offline: 0, online: 1, refused: 2 } as const

/** Why a connection was refused (the codes of checkCredentials and the broker), as the connection log says it. */
export const REFUSAL_REASONS = {
  unknown: 'unknown device',
  'bad-credentials': 'bad credentials',
  certificate: 'certificate required',
  blocked: 'blocked',
  protocol: 'unsupported protocol',
} as const
export type RefusalCode = keyof typeof REFUSAL_REASONS

interface Waiter {
  resolve(): void
  reject(e: unknown): void
}

/**
 * Connection state of devices: one connection log per connect (status 1), disconnect
 * (0) and refused attempt (2), and `devices.device_status/client_ip/connected_at/keep_alive` kept current.
 * Sessions are told apart by object identity (the broker's client): a disconnect of a session that is no longer
 * the device's current one (taken over) is logged but never marks the device offline.
 * Writes are batched: everything recorded while a write is running goes in the next single transaction
 * (`meta.connections.record`), so a storm of 1,000 connects costs a few transactions, not 2,000. Refused
 * attempts are throttled by the RefusalGuard: one row per client id and address per window, later refusals
 * counted into it.
 * Each connect, disconnect and refusal row is also an `info` log line (never with credentials): a refusal folded
 * into a row is not, so a flood of refusals writes one line per client id and address per window.
 */
export class ConnectionTracker {
  private current = new Map<number, object>()
  private logs: ConnectLogInput[] = []
  /** Refusals to count into rows already recorded: `${clientId}\0${ip}\0${msgTime}` → fold. */
  private folds = new Map<string, ConnectLogFold>()
  private states = new Map<number, ConnectionState>()
  /** device.online / device.offline events, stored with the states they announce. */
  private outbox: OutboxInput[] = []
  private waiters: Waiter[] = []
  private running: Promise<void> | null = null

  constructor(
    private readonly meta: Pick<MetaStore, 'connections'>,
    private readonly bus?: EventBus,
    private readonly refusals?: RefusalGuard,
    private readonly logger?: Logger,
  ) {}

  /** A device's session is established (after CONNACK). */
  async connected(
    device: DeviceIdentity,
    s: { ip: string | null; keepAlive: number; session: object },
  ): Promise<void> {
    const now = Date.now()
    this.logger?.info(
      {
        deviceID: device.deviceID,
        tenantID: device.tenantID,
        clientIP: s.ip,
        keepAlive: s.keepAlive,
      },
      'device connected',
    )
    this.current.set(device.id, s.session)
    this.logs.push({
      ...logOf(device, CONNECT_STATUS.online, now),
      IP: s.ip,
      keepAlive: s.keepAlive,
    })
    this.setState({
      deviceIntID: device.id,
      online: true,
      ip: s.ip,
      connectedAt: now,
      keepAlive: s.keepAlive,
    })
    this.outbox.push(outboxOf('device.online', refOf(device), now))
    await this.schedule()
    // announced once recorded, and only while it is still the device's session (queued commands go out now)
    if (this.current.get(device.id) === s.session) this.bus?.emit('device.online', refOf(device))
  }

  /** A device's session ended. Marks it offline only when `session` is still its current session. */
  async disconnected(device: DeviceIdentity, session: object): Promise<void> {
    const now = Date.now()
    this.logs.push(logOf(device, CONNECT_STATUS.offline, now))
    const wasCurrent = this.current.get(device.id) === session
    this.logger?.info(
      {
        deviceID: device.deviceID,
        tenantID: device.tenantID,
        ...(wasCurrent ? {} : { takenOver: true }),
      },
      'device disconnected',
    )
    if (wasCurrent) {
      this.current.delete(device.id)
      this.setState({ deviceIntID: device.id, online: false })
      this.outbox.push(outboxOf('device.offline', refOf(device), now))
    }
    await this.schedule()
    if (wasCurrent) this.bus?.emit('device.offline', refOf(device))
  }

  /**
   * A connection attempt was refused (unknown device, wrong credentials, blocked, unsupported protocol): a new
   * row, or one more refusal counted into the row of the same client id and address of the current window.
   */
  async refused(attempt: {
    clientId: string
    ip: string | null
    device?: DeviceIdentity
    reason: RefusalCode
  }): Promise<void> {
    const d = attempt.device
    const how = this.refusals?.refused(attempt.clientId, attempt.ip, d !== undefined)
    if (how?.banned === 'client id')
      this.logger?.info(
        { clientID: attempt.clientId, clientIP: attempt.ip },
        'client id banned: too many refused connections',
      )
    else if (how?.banned === 'address')
      this.logger?.info(
        { clientIP: attempt.ip },
        'address banned for client ids naming no device: too many refused connections',
      )
    if (how?.kind === 'fold') {
      const key = `${attempt.clientId}\0${attempt.ip ?? ''}\0${how.msgTime}`
      const fold = this.folds.get(key)
      if (fold) {
        fold.add++
        fold.at = how.at
      } else
        this.folds.set(key, {
          deviceID: attempt.clientId,
          IP: attempt.ip,
          msgTime: how.msgTime,
          add: 1,
          at: how.at,
        })
      return this.schedule()
    }
    const reason = REFUSAL_REASONS[attempt.reason]
    this.logger?.info(
      { clientID: attempt.clientId, tenantID: d?.tenantID ?? null, clientIP: attempt.ip, reason },
      'connection refused',
    )
    this.logs.push({
      tenantID: d?.tenantID ?? null,
      deviceIntID: d?.id ?? null,
      deviceID: attempt.clientId,
      deviceName: d?.deviceName ?? null,
      connectStatus: CONNECT_STATUS.refused,
      IP: attempt.ip,
      reason,
      msgTime: how?.msgTime ?? Date.now(),
    })
    return this.schedule()
  }

  /** At start-up: no device is connected to this (new) broker, so every device is offline until it connects. */
  async allOffline(): Promise<void> {
    this.current.clear()
    await this.meta.connections.allOffline()
  }

  /** True when the session is the device's current one. */
  isCurrent(deviceIntID: number, session: object): boolean {
    return this.current.get(deviceIntID) === session
  }

  /** Resolves when everything recorded so far is written. */
  async idle(): Promise<void> {
    if (
      this.logs.length ||
      this.states.size ||
      this.folds.size ||
      this.outbox.length ||
      this.running
    )
      await this.schedule()
  }

  private setState(state: ConnectionState) {
    this.states.delete(state.deviceIntID) // keep the order of the last change per device
    this.states.set(state.deviceIntID, state)
  }

  private schedule(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
    if (!this.running) this.running = this.drain()
    return done
  }

  /** Writes batches until nothing is pending; each batch settles the callers that were waiting for it. */
  private async drain(): Promise<void> {
    await new Promise((r) => setImmediate(r)) // gather what the same tick of events records
    while (this.waiters.length) {
      const logs = this.logs
      const states = [...this.states.values()]
      const folds = [...this.folds.values()]
      const outbox = this.outbox
      const waiters = this.waiters
      this.outbox = []
      this.logs = []
      this.states = new Map()
      this.folds = new Map()
      this.waiters = []
      try {
        await this.meta.connections.record({ states, logs, folds, outbox })
        for (const w of waiters) w.resolve()
      } catch (e) {
        for (const w of waiters) w.reject(e)
      }
    }
    this.running = null
  }
}

function logOf(device: DeviceIdentity, connectStatus: number, msgTime: number): ConnectLogInput {
  return {
    tenantID: device.tenantID,
    deviceIntID: device.id,
    deviceID: device.deviceID,
    deviceName: device.deviceName,
    connectStatus,
    msgTime,
  }
}

const refOf = (d: DeviceIdentity): DeviceRef => ({
  tenantID: d.tenantID,
  id: d.id,
  deviceID: d.deviceID,
  kind: d.kind,
})
