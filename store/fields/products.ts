/**
 * Products and groups, declared once: store/libsql selects, filters, sorts and writes them from these tables,
 * their records are `RecordOf` these tables, and the HTTP side takes its list filters, labels, times and request
 * fields from them.
 */
import { audit, int, listedDevice, productID, productName, recordID, str } from './table.ts'
import type { FieldTable, RecordOf, WriteOf } from './table.ts'

/** Re-exported from its home, table.ts, for modules that import it from here. */
export { audit } from './table.ts'

/** The records these tables' reads answer and the fields their writes store. */
export type ProductRecord = RecordOf<typeof PRODUCT_TABLE>
export type ProductFields = WriteOf<typeof PRODUCT_TABLE>
export type GroupRecord = RecordOf<typeof GROUP_TABLE>
export type GroupFields = WriteOf<typeof GROUP_TABLE>
export type GroupMemberRecord = RecordOf<typeof GROUP_MEMBER_TABLE>

const count = (sql: string) => ({ sql: `(SELECT count(*) ${sql})`, read: int }) as const

/** A product (`p`): the model its devices share; reads carry the counts of its devices and model records. */
export const PRODUCT_TABLE = {
  id: recordID('p'),
  productName: {
    sql: 'p.product_name',
    column: 'product_name',
    type: str,
    filter: 'text',
  },
  /** Generated on create, immutable. */
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
  cloudProtocol: {
    sql: 'p.cloud_protocol',
    column: 'cloud_protocol',
    type: int,
    label: 'cloudProtocol',
    filter: 'int',
  },
  description: {
    sql: 'p.description',
    column: 'description',
    type: str.nullable(),
    filter: 'text',
  },
  /** Days its devices' raw values are kept; null = RETENTION_RAW_DAYS. */
  rawRetentionDays: {
    sql: 'p.raw_retention_days',
    column: 'raw_retention_days',
    type: int.nullable(),
  },
  /** Days its devices' uplink events are kept; null = RETENTION_EVENTS_DAYS. */
  eventRetentionDays: {
    sql: 'p.event_retention_days',
    column: 'event_retention_days',
    type: int.nullable(),
  },
  deviceCount: count(`FROM devices d WHERE d.product_int_id = p.id AND d.kind = 'device'`),
  appCount: count('FROM app_templates a WHERE a.product_int_id = p.id'),
  dataPointCount: count('FROM data_points x WHERE x.product_int_id = p.id'),
  dataStreamCount: count('FROM data_streams s WHERE s.product_int_id = p.id'),
  itemCount: count('FROM product_resources r WHERE r.product_int_id = p.id'),
  ...audit('p'),
} as const satisfies FieldTable

/** A group (`g`) of devices of one product (`p`). */
export const GROUP_TABLE = {
  id: recordID('g'),
  groupName: { sql: 'g.group_name', column: 'group_name', type: str, filter: 'text' },
  /** Generated on create, immutable. */
  groupID: { sql: 'g.group_id', read: str, filter: 'text' },
  productID,
  description: {
    sql: 'g.description',
    column: 'description',
    type: str.nullable(),
    filter: 'text',
  },
  productName,
  productIntID: { sql: 'g.product_int_id', column: 'product_int_id', type: int },
  deviceCount: count('FROM group_devices gd WHERE gd.group_int_id = g.id'),
  ...audit('g'),
} as const satisfies FieldTable

/** A member of a group (`d`, its product `p`): the device fields a member list answers. */
export const GROUP_MEMBER_TABLE = {
  ...listedDevice,
  deviceStatus: { sql: 'd.device_status', read: int, label: 'deviceStatus' },
  /** The same value as deviceStatus, under Variant A's member name. */
  status: { sql: 'd.device_status', read: int, label: 'deviceStatus' },
  productID: { sql: 'p.product_id', read: str },
  productName: { sql: 'p.product_name', read: str },
  createAt: { sql: 'd.create_at', time: true, read: int },
} as const satisfies FieldTable
