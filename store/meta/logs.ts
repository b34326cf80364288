import type { ListArgs, Page } from '../list.ts'
import type { CurrentAlertRecord, HistoryAlertRecord } from '../fields/alerts.ts'
import type { ConnectLogRecord, ControlLogRecord, EventRecord } from '../fields/logs.ts'
import type { AlertEvent } from '../../src/kernel/events.ts'

export type { CurrentAlertRecord, HistoryAlertRecord } from '../fields/alerts.ts'
export type { ConnectLogRecord, ControlLogRecord, EventRecord } from '../fields/logs.ts'

/** One connection attempt (every attempt is logged; a refused one has status 2). */
export interface ConnectLogInput {
  /** Null when the client id matched no device (the log then shows in no tenant's list). */
  tenantID: string | null
  deviceIntID?: number | null
  /** The MQTT client id. */
  deviceID: string
  deviceName?: string | null
  /** 0 offline (disconnected), 1 online (connected), 2 authentication failed. */
  connectStatus: number
  IP?: string | null
  keepAlive?: number | null
  /** Why a refused attempt (status 2) was refused, e.g. `bad credentials`; null otherwise. */
  reason?: string | null
  /** Epoch milliseconds of the connect/disconnect; default now. */
  msgTime?: number
}

/** Refusals counted into a refused connection log recorded before (the row of that client id, address and time). */
export interface ConnectLogFold {
  /** The MQTT client id of the row. */
  deviceID: string
  IP: string | null
  /** The row's msgTime (epoch milliseconds). */
  msgTime: number
  /** Refusals to add to the row's `attempts`. */
  add: number
  /** Epoch milliseconds of the last of them (the row's updateAt). */
  at: number
}

/** One uplink message, logged with its raw payload. */
export interface EventInput {
  tenantID: string
  deviceIntID?: number | null
  deviceID: string
  /** The device's name at the time. */
  deviceName?: string | null
  /** Shows the product's name in the list. */
  productIntID?: number | null
  /** The device's relative topic. */
  topic?: string | null
  payload?: string | null
  IP?: string | null
  /** 1 (default): every value was stored as a data point; 0: some or all were not, `reason` says why. */
  status?: number
  reason?: string | null
  /** Epoch milliseconds the platform received it; default now. */
  msgTime?: number
}

/**
 * One downlink. A command to a device names the device; a group command writes one row naming the group and no
 * device (the group's control log); deliveries of a group command to its devices may add one row per device
 * (device fields set, group fields optional) which show in the device logs only.
 */
export interface ControlLogInput {
  tenantID: string
  deviceIntID?: number | null
  deviceID?: string | null
  deviceName?: string | null
  groupIntID?: number | null
  groupID?: string | null
  groupName?: string | null
  /** The task_id sent in the command envelope; acknowledgements find the log by it. */
  taskID?: string | null
  topic?: string | null
  /** The payload as the caller gave it (text; gateway logs parse it as JSON when they can). */
  payload?: string | null
  /** 0 failed, 1 issued, 2 acknowledged, 3 no receipt needed. */
  publishStatus: number
  /** The issuing user's name (shown as publishUser, and createUser in gateway logs). */
  publishUser?: string | null
  userIntID?: number | null
  /** Epoch milliseconds it was issued; default now. */
  msgTime?: number
}

/**
 * Connection logs, uplink messages (events) and downlink messages (control logs). The read side serves the log
 * lists (newest first by msgTime; startTime/endTime bound msgTime); the write side is what ingest appends
 * (multi-row, one transaction per call).
 */
export interface LogRepository {
  /** Connection logs of the tenant. */
  connectLogs(tenant: string, q: ListArgs): Promise<Page<ConnectLogRecord>>
  /** Uplink messages of the tenant. */
  events(tenant: string, q: ListArgs): Promise<Page<EventRecord>>
  /** Device downlinks of the tenant (not the groups' own rows). */
  controlLogs(tenant: string, q: ListArgs): Promise<Page<ControlLogRecord>>
  /** Connection logs of one device or gateway of the tenant; NotFound when it is not the tenant's. */
  deviceConnectLogs(
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
  ): Promise<Page<ConnectLogRecord>>
  /** Uplink messages of one device or gateway of the tenant (gateway-only with `kind`); NotFound otherwise. */
  deviceEvents(
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
    kind?: 'gateway',
  ): Promise<Page<EventRecord>>
  /** Downlinks to one device or gateway of the tenant (gateway-only with `kind`); NotFound otherwise. */
  deviceControlLogs(
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
    kind?: 'gateway',
  ): Promise<Page<ControlLogRecord>>
  /** A group's own control logs (one per group command); NotFound when the group is not the tenant's. */
  groupControlLogs(tenant: string, groupIntID: number, q: ListArgs): Promise<Page<ControlLogRecord>>
  /** Appends connection logs in one transaction. Returns how many were written. */
  addConnectLogs(rows: readonly ConnectLogInput[]): Promise<number>
  /** Appends uplink messages in one transaction. Returns how many were written. */
  addEvents(rows: readonly EventInput[]): Promise<number>
  /** Appends one control log; returns its id. */
  addControlLog(row: ControlLogInput): Promise<number>
  /** Appends control logs in one transaction; returns their ids in input order. */
  addControlLogs(rows: readonly ControlLogInput[]): Promise<number[]>
  /**
   * Sets the publishStatus of a control log by record id (number) or of every log of a task (taskID string),
   * and its updateAt. With `whenStatus`, only logs currently in that status change. Returns how many changed.
   */
  setControlLogStatus(
    ref: number | string,
    publishStatus: number,
    opts?: { whenStatus?: number; tenantID?: string },
  ): Promise<number>
}

/** One occurrence of an alert condition. */
export interface AlertInput {
  tenantID: string
  alertName: string
  alertContent?: string | null
  /** 1 urgent, 2 major, 3 minor, 4 warning (enumeration alertSeverity). */
  alertSeverity: number
  /** The triggering values (any JSON value; usually an object). */
  alertDetail?: unknown
  deviceIntID?: number | null
  deviceID?: string | null
  deviceName?: string | null
  /** Epoch milliseconds the condition was seen; the startTime of a new alert. Default now. */
  time?: number
  /** The alert rule that raised it; none for the built-in limit and fault alerts (and ad-hoc alerts). */
  ruleID?: number | null
}

/** An open or moved alert, as the alert engine and the domain events see it. */
export interface AlertRef {
  id: number
  tenantID: string
  ruleID: number | null
  alertName: string
  alertSeverity: number
  alertTimes: number
  alertDetail: unknown
  deviceIntID: number | null
  deviceID: string | null
  ackUser?: string | null
}

/** Why an alert moved to the history. */
export type ClearReason = 'condition' | 'handled' | 'rule'

/**
 * What an alert change needs to write its event: every opening, closing and first acknowledgement stores its
 * outbox row (`alert.raised`, `alert.cleared`, `alert.acked`, with a pending delivery per subscribed webhook of
 * the alert's tenant) in the transaction of the change, and answers the events (AlertEvent) to emit after it.
 */
export interface AlertEventCtx {
  /** Epoch ms of the change (the events' `at` and outbox `time`). */
  at: number
  /** alertSeverity code → the label the events carry as `alertSeverityLabel`. */
  severityLabels: Readonly<Record<number, string>>
}

/** Current (open) and history (handled) alerts of a tenant. */
export interface AlertRepository {
  /** How many alerts of all tenants are open, by severity (1 to 4). */
  countCurrent(): Promise<Record<number, number>>
  /** Open alerts, newest first (createAt). */
  current(tenant: string, q: ListArgs): Promise<Page<CurrentAlertRecord>>
  /** Handled alerts, newest first (createAt). */
  history(tenant: string, q: ListArgs): Promise<Page<HistoryAlertRecord>>
  /**
   * Raises alerts without writing events (tests and seeding; the alert engine uses raiseAlerts): each row opens
   * a current alert, or, when one is open with the same key (rule and device, or for alerts without a rule
   * alertName and device), increments its alertTimes and takes the row's content, severity and detail. One
   * transaction; returns the alert ids in input order.
   */
  raise(rows: readonly AlertInput[]): Promise<number[]>
  /**
   * As `raise`, answering each alert as it now is (alertTimes 1 when it was opened) and the `alert.raised` events
   * of the alerts it opened (none for those counted again), written to the outbox in the same transaction.
   */
  raiseAlerts(
    rows: readonly AlertInput[],
    ctx: AlertEventCtx,
  ): Promise<{ alerts: AlertRef[]; events: AlertEvent[] }>
  /**
   * Opens the no-data alerts due at `ctx.at`: for every enabled rule with noDataSeconds, each of its devices
   * whose last uplink (logged, or seen by the engine), the rule's last edit and the device's creation are all
   * older than that. Opening is an insert that does nothing when the alert is already open, so that several
   * nodes open each one once. Answers the `alert.raised` events of the alerts opened.
   */
  raiseNoData(ctx: AlertEventCtx): Promise<AlertEvent[]>
  /**
   * Handles current alerts: all of `ids` move to the history with endTime `ctx.at`, or none (NotFound('ids')).
   * Answers their `alert.cleared` events (reason handled).
   */
  clear(tenant: string, ids: number[], ctx: AlertEventCtx): Promise<AlertEvent[]>
  /**
   * Moves these open alerts (any tenant) to the history; ids no longer open are skipped. Answers the
   * `alert.cleared` events of those moved.
   */
  close(ids: readonly number[], reason: ClearReason, ctx: AlertEventCtx): Promise<AlertEvent[]>
  /**
   * Moves every open alert whose rule is disabled or deleted to the history (what a stop between a rule's change and
   * the closing of its alerts left open). Answers the `alert.cleared` events.
   */
  closeOfGoneRules(ctx: AlertEventCtx): Promise<AlertEvent[]>
  /** Moves every open alert of these rules to the history. Answers the `alert.cleared` events. */
  closeOfRules(
    ruleIDs: readonly number[],
    reason: ClearReason,
    ctx: AlertEventCtx,
  ): Promise<AlertEvent[]>
  /** The open alerts of these devices. */
  openOf(deviceIntIDs: readonly number[]): Promise<AlertRef[]>
  /**
   * Records the first acknowledgement of an open alert of the tenant (a later one changes nothing); NotFound
   * otherwise. Answers the list record and the `alert.acked` event (none when it was acknowledged before).
   */
  ack(
    tenant: string,
    id: number,
    ackUser: string | null,
    ctx: AlertEventCtx,
  ): Promise<{ alert: CurrentAlertRecord; events: AlertEvent[] }>
  /** Deletes history alerts: all of `ids` or none (NotFound('ids')). */
  deleteHistory(tenant: string, ids: number[]): Promise<void>
}
