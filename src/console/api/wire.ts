/**
 * The API's records as the server types them: each is the output of its response schema in src/schemas/ (the same
 * schemas the routes answer through and the OpenAPI document describes), so the console reads the fields the API
 * documents instead of declaring its own copies. Types only (`import type`): no server code reaches the bundle.
 * Variant B's records reach the pages in these shapes through the adapter beside this file (variant.ts).
 */
import type { Answered as Wire } from '../../schemas/common.ts'
import type { CurrentAlert, HistoryAlert } from '../../schemas/alerts.ts'
import type { AlertRule } from '../../schemas/alert-rules.ts'
import type { Application, ApplicationCreated, User } from '../../schemas/accounts.ts'
import type { AuditLog } from '../../schemas/audit.ts'
import type { Cert, CertDevice, CertListItem } from '../../schemas/certs.ts'
import type { AppTemplate, ConsoleTemplate } from '../../schemas/app-templates.ts'
import type { PublishAnswer } from '../../schemas/commands.ts'
import type { DataPointListItem } from '../../schemas/data-points.ts'
import type { DataStreamListItem } from '../../schemas/data-streams.ts'
import type { Firmware } from '../../schemas/firmware.ts'
import type { Device, DeviceListItem, LocatedDevice } from '../../schemas/devices.ts'
import type { Device as DeviceB } from '../../variant-b/schemas/devices.ts'
import type { GatewayListItem } from '../../schemas/gateways.ts'
import type { GroupDevice, GroupListItem } from '../../schemas/groups.ts'
import type { LatestValue } from '../../schemas/ingest.ts'
import type { ConnectLog, ControlLog, Event, GroupControlLog } from '../../schemas/logs.ts'
import type { MetricListItem } from '../../schemas/metrics.ts'
import type { DeviceConnection } from '../../schemas/onboarding.ts'
import type { Overview } from '../../schemas/overview.ts'
import type { ProductListItem } from '../../schemas/products.ts'
import type { Rollout, RolloutCreate, RolloutDevice } from '../../schemas/rollouts.ts'
import type { DeviceSchedule, GroupSchedule } from '../../schemas/schedules.ts'
import type { GroupData, MetricsData, OriginalData } from '../../schemas/telemetry.ts'
import type { TaskStatus } from '../../schemas/tasks.ts'
import type { StateDocument, StateTask } from '../../schemas/state.ts'
import type { Webhook, WebhookDelivery } from '../../schemas/webhooks.ts'

export type DeviceItemWire = Wire<typeof DeviceListItem>
/** A device as `GET /devices_located` answers it (the map's read). */
export type LocatedWire = Wire<typeof LocatedDevice>
/** A device's detail: Variant A's, or Variant B's (which has no parentDevice: its gateways are devices). */
export type DeviceWire = Wire<typeof Device> | Wire<typeof DeviceB>
export type DeviceAWire = Wire<typeof Device>
export type LatestValueWire = Wire<typeof LatestValue>
export type ConnectionWire = Wire<typeof DeviceConnection>
export type ProductItemWire = Wire<typeof ProductListItem>
export type GroupItemWire = Wire<typeof GroupListItem>
export type GroupDeviceWire = Wire<typeof GroupDevice>
export type CurrentAlertWire = Wire<typeof CurrentAlert>
export type HistoryAlertWire = Wire<typeof HistoryAlert>
export type AlertRuleWire = Wire<typeof AlertRule>
export type WebhookWire = Wire<typeof Webhook>
export type DeliveryWire = Wire<typeof WebhookDelivery>
export type ScheduleWire = Wire<typeof DeviceSchedule> | Wire<typeof GroupSchedule>
export type OverviewWire = Wire<typeof Overview>
export type EventWire = Wire<typeof Event>
export type ConnectLogWire = Wire<typeof ConnectLog>
export type ControlLogWire = Wire<typeof ControlLog>
export type GroupControlLogWire = Wire<typeof GroupControlLog>
export type TaskStatusWire = Wire<typeof TaskStatus>
export type OriginalDataWire = Wire<typeof OriginalData>
export type MetricsDataWire = Wire<typeof MetricsData>
export type GroupDataWire = Wire<typeof GroupData>
export type PointItemWire = Wire<typeof DataPointListItem>
export type StreamItemWire = Wire<typeof DataStreamListItem>
export type MetricItemWire = Wire<typeof MetricListItem>
export type ConsoleTemplateWire = Wire<typeof ConsoleTemplate>
export type GatewayItemWire = Wire<typeof GatewayListItem>
export type PublishAnswerWire = Wire<typeof PublishAnswer>
export type TemplateWire = Wire<typeof AppTemplate>
export type OriginalDataItemWire = OriginalDataWire[number]
export type MetricsDataItemWire = MetricsDataWire[number]
/** A device's state document (desired, reported, delta, versions, each top-level key's last change). */
export type StateDocumentWire = Wire<typeof StateDocument>
/** What a group's or product's state patch answers (202): the task to follow. */
export type StateTaskWire = Wire<typeof StateTask>
/**
 * The `data` of a `device.state` event of the live stream (StateEvent of src/kernel/events.ts, which imports Node's
 * events and so cannot be named here either): the document's versions and delta after the change, what changed.
 */
export type StateEventWire = Pick<
  StateDocumentWire,
  'deviceID' | 'version' | 'desiredVersion' | 'reportedVersion' | 'delta'
> & { deviceIntID: number; side: 'desired' | 'reported'; changed: string[]; at: number }
/** A firmware package (`GET /firmware`, the upload's 201). */
export type FirmwareWire = Wire<typeof Firmware>
/** A firmware rollout with its devices counted by state (`GET /firmware_rollouts`, its detail and actions). */
export type RolloutWire = Wire<typeof Rollout>
/** One device of a rollout, also a row of a device's firmware history. */
export type RolloutDeviceWire = Wire<typeof RolloutDevice>
/** The fields of `POST /firmware_rollouts` the API defaults when they are left out. */
type RolloutDefaulted = 'ratePerMinute' | 'abortMinFinished' | 'timeoutMinutes' | 'retries'
/** What `POST /firmware_rollouts` takes: the request as the API reads it, its defaulted fields optional. */
export type RolloutCreateBody = Omit<RolloutCreate, RolloutDefaulted> &
  Partial<Pick<RolloutCreate, RolloutDefaulted>>
/**
 * The `data` of a `firmware.rollout` event (written with the outbox event by store/libsql/rollouts.ts): the
 * rollout's status and counts when they changed.
 */
export type RolloutEventWire = Pick<
  RolloutWire,
  'rolloutID' | 'firmwareID' | 'version' | 'productID' | 'status' | 'total' | 'counts'
> & { rolloutIntID: number; at: number }
/** The `data` of a `firmware.device` event: one device's new state in a rollout. */
export type RolloutDeviceEventWire = Pick<
  RolloutDeviceWire,
  | 'rolloutIntID'
  | 'rolloutID'
  | 'firmwareID'
  | 'version'
  | 'deviceIntID'
  | 'deviceID'
  | 'deviceName'
  | 'status'
  | 'attempt'
  | 'progress'
  | 'error'
> & { at: number }
/** A user of the tenant (`GET /users`, its detail, create and edit; admins only). */
export type UserWire = Wire<typeof User>
/** An application (API key) as listed; `ApplicationCreatedWire` adds the `appToken` its create answers once. */
export type ApplicationWire = Wire<typeof Application>
export type ApplicationCreatedWire = Wire<typeof ApplicationCreated>
/** A client certificate as listed, and its detail with the PEM texts (`key` null for viewers). */
export type CertItemWire = Wire<typeof CertListItem>
export type CertWire = Wire<typeof Cert>
/** A device bound to a certificate. */
export type CertDeviceWire = Wire<typeof CertDevice>
/** A row of the audit log (`GET /audit_logs`, admins): who changed what, when and from where. */
export type AuditLogWire = Wire<typeof AuditLog>
