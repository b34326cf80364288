/**
 * The fields of devices and gateways (both rows of the `devices` table, told apart by `kind`), declared once:
 * store/libsql reads and writes rows from these tables, and the HTTP side takes its list filters, CSV columns,
 * labels, JSON fields, times and create defaults from them.
 */
import { z } from 'zod'
import { recordID, writeSchema, type FieldTable, type RecordOf } from './table.ts'

const text = z.string().nullable()
const int = z.number().int().nullable()
const real = z.number().nullable()
const object = z.record(z.string(), z.unknown()).nullable()
const id = z.number().int()
const str = z.string()
/** What a JSON field reads as: its stored text (the wire parses it, src/wire/shape.ts). */
const jsonText = z.string().nullable()

/** Connection credentials: generated when a create omits them, immutable afterwards. */
const credentials = {
  deviceID: {
    sql: 'd.device_id',
    column: 'device_id',
    type: z.string(),
    filter: 'text',
    csv: 'text',
  },
  deviceUsername: {
    sql: 'd.device_username',
    column: 'device_username',
    type: z.string(),
    csv: 'text',
  },
  token: { sql: 'd.token', column: 'token', type: z.string(), csv: 'text' },
} as const satisfies FieldTable

/** Descriptive fields devices and gateways share. */
const described = {
  manufacturer: {
    sql: 'd.manufacturer',
    column: 'manufacturer',
    type: text,
    filter: 'text',
    csv: 'text',
  },
  serialNumber: {
    sql: 'd.serial_number',
    column: 'serial_number',
    type: text,
    filter: 'text',
    csv: 'text',
  },
  softVersion: {
    sql: 'd.soft_version',
    column: 'soft_version',
    type: text,
    filter: 'text',
    csv: 'text',
  },
  hardwareVersion: {
    sql: 'd.hardware_version',
    column: 'hardware_version',
    type: text,
    csv: 'text',
  },
  description: { sql: 'd.description', column: 'description', type: text, csv: 'text' },
  deviceConsoleIP: {
    sql: 'd.device_console_ip',
    column: 'device_console_ip',
    type: text,
    csv: 'text',
  },
  deviceConsolePort: {
    sql: 'd.device_console_port',
    column: 'device_console_port',
    type: int,
    csv: 'number',
  },
  deviceConsoleUsername: {
    sql: 'd.device_console_username',
    column: 'device_console_username',
    type: text,
    csv: 'text',
  },
  location: {
    sql: 'd.location',
    column: 'location',
    type: z.unknown(),
    read: jsonText,
    json: true,
    csv: 'json',
  },
} as const satisfies FieldTable

/** Who made a record and when. */
const audit = {
  createUser: { sql: 'u.username', read: text },
  tenantID: { sql: 'd.tenant_id', read: str },
  userIntID: { sql: 'd.user_int_id', read: int },
  createAt: { sql: 'd.create_at', time: true, read: id },
  updateAt: { sql: 'd.update_at', time: true, sort: true, read: int },
} as const satisfies FieldTable

/**
 * The last uplink or connect, epoch ms; a sort key (`_sort=lastSeenAt`). Ingest writes it at most once a minute
 * per device (ingest/last-seen.ts), so it may be up to a minute and a flush interval old.
 */
const lastSeenAt = () => ({ sql: 'd.last_seen_at', time: true, sort: true, read: int }) as const

/** Fields devices and gateways both hold, alike but for a device's CSV column. */
const shared = {
  name: { sql: 'd.device_name', column: 'device_name', type: str, empty: '', filter: 'text' },
  authType: {
    sql: 'd.auth_type',
    column: 'auth_type',
    type: int,
    label: 'authType',
    filter: 'int',
  },
  blocked: { sql: 'd.blocked', column: 'blocked', type: id, empty: 0, filter: 'int' },
  deviceStatus: { sql: 'd.device_status', read: id, label: 'deviceStatus', filter: 'int' },
  productName: { sql: 'p.product_name', read: str, filter: 'text' },
} as const satisfies FieldTable

const productIntID = {
  sql: 'p.id',
  column: 'product_int_id',
  type: z.number().int(),
  empty: 0,
  filter: 'int',
} as const

/** A device: a terminal on the cloud, behind a gateway, or a child of another device. Its CSV columns come in
 * the order of this table. */
export const DEVICE_TABLE = {
  id: recordID('d'),
  deviceName: { ...shared.name, csv: 'text' },
  deviceID: credentials.deviceID,
  productID: { sql: 'p.product_id', read: str, filter: 'text', csv: 'text' },
  productIntID,
  productName: shared.productName,
  deviceType: {
    sql: 'd.device_type',
    column: 'device_type',
    type: z.number().int(),
    /** Null on a gateway read with the device columns (`getAny`, lists of both kinds). */
    read: int,
    empty: 1,
    label: 'deviceType',
    filter: 'int',
    csv: 'number',
  },
  upLinkSystem: {
    sql: 'd.up_link_system',
    column: 'up_link_system',
    type: int,
    label: 'upLinkSystem',
    filter: 'int',
    csv: 'number',
  },
  gateway: {
    sql: 'd.gateway_int_id',
    column: 'gateway_int_id',
    type: int,
    filter: 'int',
    csv: 'number',
  },
  gatewayName: { sql: 'g.device_name', read: text },
  parentDevice: {
    sql: 'd.parent_device_int_id',
    column: 'parent_device_int_id',
    type: int,
    filter: 'int',
    csv: 'number',
  },
  parentDeviceName: { sql: 'pd.device_name', read: text },
  cloudProtocol: {
    sql: 'p.cloud_protocol',
    read: id,
    label: 'cloudProtocol',
    filter: 'int',
    csv: 'number',
  },
  authType: { ...shared.authType, csv: 'number' },
  deviceUsername: credentials.deviceUsername,
  token: credentials.token,
  blocked: { ...shared.blocked, csv: 'number' },
  deviceStatus: shared.deviceStatus,
  modBusIndex: {
    sql: 'd.mod_bus_index',
    column: 'mod_bus_index',
    type: int,
    filter: 'int',
    csv: 'number',
  },
  carrier: { sql: 'd.carrier', column: 'carrier', type: int, label: 'carrier', csv: 'number' },
  physicalNetwork: {
    sql: 'd.physical_network',
    column: 'physical_network',
    type: int,
    label: 'physicalNetwork',
    csv: 'number',
  },
  IMEI: { sql: 'd.imei', column: 'imei', type: text, csv: 'text' },
  IMSI: { sql: 'd.imsi', column: 'imsi', type: text, csv: 'text' },
  autoSub: { sql: 'd.auto_sub', column: 'auto_sub', type: int, csv: 'number' },
  manufacturer: described.manufacturer,
  serialNumber: described.serialNumber,
  softVersion: described.softVersion,
  hardwareVersion: described.hardwareVersion,
  description: described.description,
  deviceConsoleIP: described.deviceConsoleIP,
  deviceConsolePort: described.deviceConsolePort,
  deviceConsoleUsername: described.deviceConsoleUsername,
  latitude: { sql: 'd.latitude', column: 'latitude', type: real, csv: 'number' },
  longitude: { sql: 'd.longitude', column: 'longitude', type: real, csv: 'number' },
  location: described.location,
  lora: {
    sql: 'd.lora',
    column: 'lora',
    type: object,
    read: jsonText,
    json: true,
    csv: 'json',
  },
  metaData: {
    sql: 'd.meta_data',
    column: 'meta_data',
    type: object,
    read: jsonText,
    json: true,
    csv: 'json',
  },
  scopes: {
    sql: 'd.scopes',
    column: 'scopes',
    type: z.array(z.unknown()).nullable(),
    read: jsonText,
    json: true,
    csv: 'json',
  },
  clientIP: { sql: 'd.client_ip', read: text },
  connectedAt: { sql: 'd.connected_at', time: true, read: int },
  keepAlive: { sql: 'd.keep_alive', read: int },
  lastSeenAt: lastSeenAt(),
  /**
   * 1 while the device's state delta is not empty (it has not applied its desired state), else 0; kept by triggers
   * of the state documents (store/libsql/migrations/280_device_state.sql), a list filter on an index.
   */
  stateDelta: { sql: 'd.state_delta', read: id, filter: 'int' },
  /** 'device' or 'gateway': Variant B lists both as devices (a gateway is its deviceType 1). */
  kind: { sql: 'd.kind', read: z.enum(['device', 'gateway']) },
  ...audit,
} as const satisfies FieldTable

/** A gateway: devices hang off it and its credentials may send for them. */
export const GATEWAY_TABLE = {
  id: recordID('d'),
  gatewayName: shared.name,
  ...credentials,
  authType: shared.authType,
  blocked: shared.blocked,
  deviceStatus: shared.deviceStatus,
  lastSeenAt: lastSeenAt(),
  deviceCount: {
    sql: `(SELECT count(*) FROM devices c WHERE c.gateway_int_id = d.id AND c.kind = 'device')`,
    read: id,
  },
  gatewayProtocol: {
    sql: 'd.gateway_protocol',
    column: 'gateway_protocol',
    type: int,
    label: 'gatewayProtocol',
    filter: 'int',
  },
  upLinkNetwork: {
    sql: 'd.up_link_network',
    column: 'up_link_network',
    type: int,
    label: 'upLinkNetwork',
    filter: 'int',
  },
  upLinkProtocol: {
    sql: 'd.up_link_protocol',
    column: 'up_link_protocol',
    type: int,
    label: 'upLinkProtocol',
    filter: 'int',
  },
  mac: { sql: 'd.mac', column: 'mac', type: text, filter: 'text' },
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
  productIntID: { ...productIntID, filter: undefined },
  productName: shared.productName,
  ...described,
  manufacturer: { ...described.manufacturer, filter: undefined },
  serialNumber: { ...described.serialNumber, filter: undefined },
  ...audit,
} as const satisfies FieldTable

/** A stored device (or, from `getAny` and lists of both kinds, a gateway read with the device columns). */
export type DeviceRecord = RecordOf<typeof DEVICE_TABLE>

/** A stored gateway. */
export type GatewayRecord = RecordOf<typeof GATEWAY_TABLE>

/** Everything a device write stores, under its wire names (every field present). */
export const DeviceStored = writeSchema(DEVICE_TABLE)
export type DeviceFields = z.output<typeof DeviceStored>

/** Everything a gateway write stores; its name lives in device_name. */
export const GatewayStored = writeSchema(GATEWAY_TABLE)
export type GatewayFields = z.output<typeof GatewayStored>

/** Connection credentials, shared by devices and gateways (the broker authenticates both alike). */
export type CredentialFields = Pick<DeviceFields, keyof typeof credentials>
