import { EventEmitter } from 'node:events'

/** A device or gateway record, as events name it. */
export interface DeviceRef {
  tenantID: string
  /** The record id (`deviceIntID`). */
  id: number
  deviceID: string
  kind: 'device' | 'gateway'
}

/** A command's state change, as listeners (the group task, webhooks, the live stream) see it. */
export interface CommandEvent {
  tenantID: string
  taskID: string
  deviceIntID: number | null
  deviceID: string | null
  /** Set for a group command's own row. */
  groupID: string | null
  /** The group command's row id, for a member of a group publish. */
  parentID: number | null
  scheduleID: number | null
  commandStatus: string
  /**
   * Why the command ended without reaching its device, or was canceled (`device offline, no ttl`, `ttl ran out`...,
   * docs/commands.md); null otherwise.
   */
  statusReason: string | null
  publishStatus: number
  /** Epoch ms of the change. */
  at: number
}

/**
 * A change of one side of a device's state document, as webhooks and the live stream see it (the outbox row's
 * `data` with the tenant).
 */
export interface StateEvent {
  tenantID: string
  deviceIntID: number
  deviceID: string
  side: 'desired' | 'reported'
  /** The document's versions after the change. */
  version: number
  desiredVersion: number
  reportedVersion: number
  /** The side's top-level keys whose value changed. */
  changed: string[]
  /** The delta after the change. */
  delta: Record<string, unknown>
  /** Epoch ms of the change. */
  at: number
}

/** One stored value, as the telemetry events carry it. */
export interface StoredValue {
  productID: string
  deviceID: string
  dataPointID: string
  /** Epoch ms. */
  time: number
  value: number | string | boolean | { lat: number; lng: number } | null
}

/**
 * An alert's change, as listeners (metrics, webhooks and the live stream through the outbox) see it: the outbox
 * row's `data` with the tenant. Written by the alert store in the transaction of the change (one per transition).
 */
export interface AlertEvent {
  tenantID: string
  /** The current (or, once cleared, history) alert's id. */
  alertID: number
  /** The rule that raised it; null for the built-in limit and fault alerts. */
  ruleID: number | null
  /** The rule's name (as the alert was last raised); null for the built-in alerts. */
  ruleName: string | null
  alertName: string
  alertSeverity: number
  /** The English label of alertSeverity (an event has no reader whose language it could follow). */
  alertSeverityLabel: string | null
  deviceIntID: number | null
  deviceID: string | null
  deviceName: string | null
  /** The rule's alertContent with `{deviceName}` and `{value:<dataPointID>}` filled in (built-in: the violation). */
  alertContent: string | null
  alertTimes: number
  /** The values that matched when it was last raised. */
  alertDetail: unknown
  /** Epoch ms the alert opened. */
  startTime: number
  /** Epoch ms of the change. */
  at: number
  /** cleared: by the clear condition, by hand, or because its rule was disabled or deleted. */
  reason?: 'condition' | 'handled' | 'rule'
  /** acked: who acknowledged it. */
  ackUser?: string | null
}

/**
 * The domain events: what a write announces after its commit. The domain services in src/services emit those of
 * the API's writes and of the command and alert engines; ingest emits what devices cause: `device.online` and
 * `device.offline` (ingest/connections.ts), `telemetry.stored` and `device.response` (ingest/pipeline.ts). The
 * HTTP layer emits none. Listeners (ingest's caches and the broker, the command and alert engines, metrics,
 * sessions, and the webhook loop and the live stream, woken to read the outbox) react to them and never ask the
 * HTTP layer. Payloads are plain data, safe to hand to any listener.
 */
export interface DomainEvents {
  /** A device or gateway was created. */
  'device.created': [DeviceRef]
  /** A device's or gateway's stored fields changed (credentials, blocked flag, product, links). */
  'device.changed': [DeviceRef & { blocked: boolean }]
  /** A device or gateway and everything keyed by it were deleted. */
  'device.deleted': [DeviceRef]
  /** A product's model (the product, its data points or streams) changed: cached models are stale. */
  'model.changed': [{ tenantID: string; productIntID: number }]
  /** A data point and its stored values were deleted. */
  'dataPoint.deleted': [
    { tenantID: string; productIntID: number; productID: string; dataPointID: string },
  ]
  /** Policy or subscription bindings of these devices (or of the whole tenant) changed. */
  'acl.changed': [{ tenantID: string; deviceIntIDs: number[] | 'all' }]
  /** Devices were added to or removed from a group (the broker re-reads their group subscriptions). */
  'groupMembers.changed': [{ tenantID: string; groupIntID: number; deviceIntIDs: number[] }]
  /** A device's session was established (ingest, after the connection was recorded). */
  'device.online': [DeviceRef]
  /** A device's current session ended. */
  'device.offline': [DeviceRef]
  /** A device answered a command (payload form 4): the command service records the outcome. */
  'device.response': [
    {
      tenantID: string
      deviceIntID: number
      deviceID: string
      taskID: string
      code: number | null
      /** The response message as the device sent it. */
      payload: string
    },
  ]
  /**
   * Values were committed to the telemetry store (after the uplink's acknowledgement is due; listeners must only
   * queue work, never delay ingest).
   */
  'telemetry.stored': [
    { tenantID: string; deviceIntIDs: readonly number[]; values: readonly StoredValue[] },
  ]
  /** An alert was opened (once: matching it again only increments alertTimes, without an event). */
  'alert.raised': [AlertEvent]
  /** An alert moved to the history. */
  'alert.cleared': [AlertEvent]
  /** An alert was acknowledged the first time (it stays current; a second ack emits nothing). */
  'alert.acked': [AlertEvent]
  /**
   * A device's state document changed (after its commit; its outbox event was stored with it). `desired` is the
   * whole desired side now; `deltaChanged`: the delta is not what it was.
   */
  'device.state': [StateEvent & { desired: Record<string, unknown>; deltaChanged: boolean }]
  /**
   * A device subscribed (the embedded broker; also a resumed session's kept subscriptions once it is connected):
   * its filters relative to its mountpoint.
   */
  'device.subscribed': [
    { tenantID: string; deviceIntID: number; deviceID: string; filters: string[] },
  ]
  /** A firmware rollout changed state or announced its counts (after the commit that stored its outbox event). */
  'firmware.rollout': [{ tenantID: string; rolloutIntID: number }]
  /** Devices of a rollout changed state (after the commit that stored their outbox events). */
  'firmware.device': [{ tenantID: string; rolloutIntID: number; deviceIntIDs: readonly number[] }]
  /** A command changed state (every transition of its lifecycle). */
  'command.status': [CommandEvent]
  /** The retention job ran (in this process): what it deleted. */
  'retention.completed': [
    {
      startedAt: number
      ms: number
      events: number
      connectLogs: number
      controlLogs: number
      auditLogs: number
      values: number
    },
  ]
  /** A backup of the embedded stores was written. */
  'backup.completed': [{ path: string; files: Array<{ name: string; bytes: number }>; ms: number }]
  /** A user's role, password or name changed: sessions must re-read the user. */
  'user.changed': [{ tenantID: string; id: number }]
  /** A user was deleted: its tokens stop working at once. */
  'user.deleted': [{ tenantID: string; id: number }]
  /** One token was revoked (logout): it stops working at once. */
  'token.revoked': [{ jti: string }]
}

export type DomainEventName = keyof DomainEvents

/** The one in-process channel of domain events (typed; synchronous listeners; a listener's throw is its own). */
export class EventBus extends EventEmitter<DomainEvents> {}
