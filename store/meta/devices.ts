import type { ListArgs, Page } from '../list.ts'
import type { DeviceFields, DeviceRecord, GatewayFields, GatewayRecord } from '../fields/devices.ts'
import type { ProjectedReads, TableRepository } from './table.ts'

export type {
  CredentialFields,
  DeviceFields,
  DeviceRecord,
  GatewayFields,
  GatewayRecord,
} from '../fields/devices.ts'

/** The product a device write points at. */
export interface ProductRef {
  id: number
  productID: string
  cloudProtocol: number
}

/** A stored device as a write's fields, plus what an edit needs to know about it. */
export type CurrentDevice = DeviceFields & { id: number; productID: string }

/** A stored gateway as a write's fields, plus its id and productID. */
export type CurrentGateway = GatewayFields & { id: number; productID: string }

/**
 * Devices of a tenant (kind 'device'); gateways are `.gateways`. Records are `RecordOf` the field tables
 * (store/fields/devices.ts): wire names, JSON fields as text, times as epoch ms. An update replaces every stored
 * field and sets updateAt (Conflict as create). A delete is refused (Referenced) while a device has child
 * devices not deleted with it; its links (groups, policies, certificates, subscriptions) and its logs and
 * alerts go with it.
 */
/** Which devices a list reads: `groupID` narrows to members of that group; `kinds` (default `['device']`). */
export interface DeviceListOpts {
  groupID?: string
  kinds?: ReadonlyArray<'device' | 'gateway'>
}

export interface DeviceRepository
  extends
    TableRepository<DeviceRecord, DeviceRecord, DeviceFields>,
    ProjectedReads<DeviceListOpts> {
  readonly gateways: GatewayRepository
  /**
   * A page of devices; `groupID` narrows to members of that group; `kinds` (default `['device']`) may take
   * gateways in too, as rows of the device columns.
   */
  list(tenant: string, q: ListArgs, opts?: DeviceListOpts): Promise<Page<DeviceRecord>>
  /** The detail record (device columns, `kind` 'device' or 'gateway') of a device or a gateway; NotFound when neither. */
  getAny(tenant: string, id: number): Promise<DeviceRecord>
  /** The stored fields of a device, for merging an edit into them. */
  current(tenant: string, id: number): Promise<CurrentDevice>
  /** The tenant's product with that productID, or undefined. */
  product(tenant: string, productID: string): Promise<ProductRef | undefined>
  /** True when `id` is a gateway of the tenant. */
  gatewayExists(tenant: string, id: number): Promise<boolean>
  /**
   * The chain of device ids from `id` up through its parents ([id, parent, grandparent ...]); empty when `id` is
   * not a device of the tenant. A device whose chain contains itself would close a cycle.
   */
  ancestry(tenant: string, id: number): Promise<number[]>
  /**
   * A page (by id, after `afterID`) of the tenant's devices a map can place: with latitude and longitude, or of a
   * product with a geolocation data point.
   */
  located(tenant: string, afterID: number, limit: number): Promise<LocatedDevice[]>
  /** Stores a new device; Conflict names deviceID, deviceName or modBusIndex. */
  create(tenant: string, userIntID: number | null, f: DeviceFields): Promise<DeviceRecord>
}

/** A device as a map needs it. */
export interface LocatedDevice {
  id: number
  deviceID: string
  deviceName: string
  /** 1 online, 0 offline. */
  deviceStatus: number
  productID: string
  /** Null when it is placed by its geolocation data point's latest value. */
  latitude: number | null
  longitude: number | null
}

/**
 * Gateways of a tenant (records with deviceCount): rows of the devices table with kind 'gateway', so their
 * credentials work like a device's. An update replaces every stored field; a delete is refused (Referenced)
 * while devices hang off a gateway.
 */
export interface GatewayRepository extends TableRepository<
  GatewayRecord,
  GatewayRecord,
  GatewayFields
> {
  /** The stored fields of a gateway, for merging an edit into them. */
  current(tenant: string, id: number): Promise<CurrentGateway>
  /** Stores a new gateway; Conflict names deviceID or gatewayName. */
  create(tenant: string, userIntID: number | null, f: GatewayFields): Promise<GatewayRecord>
}
