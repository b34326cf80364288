import type { IngestDevice, ModelPoint } from '../fields/ingest.ts'

export type { IngestDevice, ModelPoint } from '../fields/ingest.ts'
import type { OutboxInput } from './webhooks.ts'
import type { ConnectLogFold, ConnectLogInput } from './logs.ts'

/** A data stream of a product, with the record ids of its data points. */
export interface ModelStream {
  id: number
  topic: string
  streamType: number
  /** Record ids of the stream's data points. */
  pointIntIDs: number[]
}

/** How a device identity is looked up. */
export type DeviceKey = 'id' | 'deviceID' | 'deviceUsername'

/** The reads of the uplink pipeline, the broker and HTTP ingest: device identities and product models. */
export interface IngestRepository {
  /** Devices and gateways with this deviceUsername (not unique: the caller compares tokens). */
  devicesByUsername(username: string): Promise<IngestDevice[]>
  /** The device or gateway with this deviceID (unique across tenants), if any. */
  deviceByDeviceID(deviceID: string): Promise<IngestDevice | undefined>
  /**
   * The tenant's devices and gateways among `deviceIDs`, in a few statements (at most 500 ids each) whatever their
   * number; deviceIDs the tenant has no device of are left out.
   */
  devicesByDeviceIDs(tenant: string, deviceIDs: readonly string[]): Promise<IngestDevice[]>
  /** The device or gateway whose `key` is `value`; the oldest when several share a deviceUsername. */
  device(key: DeviceKey, value: string | number): Promise<IngestDevice | undefined>
  /** The devices connected through gateway `gatewayIntID`. */
  childrenOf(gatewayIntID: number): Promise<IngestDevice[]>
  /**
   * The groupIDs of the groups device `deviceIntID` is a member of (groups of its own product), ordered by group
   * record id: the broker subscribes the device to each group's topic.
   */
  groupsOf(deviceIntID: number): Promise<string[]>
  /** A product's data points and data streams (with their points), for decoding uplinks. */
  productModel(productIntID: number): Promise<{ points: ModelPoint[]; streams: ModelStream[] }>
  /**
   * The tenant's device or gateway whose record id (a number) or deviceID (a string) is `key`, with its product's
   * data points; undefined when the tenant has none such.
   */
  deviceWithPoints(
    tenant: string,
    key: number | string,
  ): Promise<{ device: IngestDevice; points: ModelPoint[] } | undefined>
  /**
   * deviceWithPoints of many deviceIDs at once (a few statements, not one per device): deviceID → the tenant's
   * device and its product's data points; deviceIDs the tenant has no device of are absent.
   */
  devicesWithPoints(
    tenant: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, { device: IngestDevice; points: ModelPoint[] }>>
}

/** The connection state of one device or gateway, as the broker last saw it. */
export type ConnectionState =
  | {
      deviceIntID: number
      online: true
      ip: string | null
      /** Epoch ms of the connect. */
      connectedAt: number
      keepAlive: number
    }
  | { deviceIntID: number; online: false }

/** Connection state of devices (deviceStatus, clientIP, connectedAt, keepAlive) and the connection logs. */
export interface ConnectionRepository {
  /**
   * Writes the devices' states (in order; a device's last state wins), appends the connection logs and then counts
   * `folds` into refused rows (this batch's or earlier ones), and stores the events announcing the changes
   * (`outbox`: device.online / device.offline), in one transaction.
   */
  record(batch: {
    states: readonly ConnectionState[]
    logs: readonly ConnectLogInput[]
    folds?: readonly ConnectLogFold[]
    outbox?: readonly OutboxInput[]
  }): Promise<void>
  /**
   * Marks every device offline (at start-up no device is connected yet), with a device.offline event for each one
   * that was online (same transaction). Returns how many changed.
   */
  allOffline(): Promise<number>
  /**
   * Sets the devices' lastSeenAt to `at` where the stored value is null or at least `olderThanMs` before `at`, in
   * one transaction (a few multi-row statements). Answers the record ids of the devices it changed.
   */
  markSeen(
    seen: ReadonlyArray<{ deviceIntID: number; at: number }>,
    olderThanMs: number,
  ): Promise<number[]>
}
