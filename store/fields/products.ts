/**
 * Products and groups, declared once: store/libsql selects, filters, sorts and writes them from these tables,
 * their records are `RecordOf` these tables, and the HTTP side takes its list filters, labels, times and request
 * fields from them.
 */
import { z } from 'zod'
import type { FieldTable, RecordOf, WriteShape } from './table.ts'

const int = z.number().int()
const str = z.string()

/** Who made a record and when (`x` is the record's alias, `u` the joined user). */
export const audit = (x: string) =>
  ({
    userIntID: { sql: `${x}.user_int_id`, read: int.nullable() },
    createUser: { sql: 'u.username', read: str.nullable() },
    createAt: { sql: `${x}.create_at`, time: true, read: int },
    updateAt: { sql: `${x}.update_at`, time: true, sort: true, read: int.nullable() },
  }) as const satisfies FieldTable

const count = (sql: string) => ({ sql: `(SELECT count(*) ${sql})`, read: int }) as const

/** A product (`p`): the model its devices share; reads carry the counts of its devices and model records. */
export const PRODUCT_TABLE = {
  id: { sql: 'p.id', read: int },
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
  deviceCount: count(`FROM devices d WHERE d.product_int_id = p.id AND d.kind = 'device'`),
  appCount: count('FROM app_templates a WHERE a.product_int_id = p.id'),
  dataPointCount: count('FROM data_points x WHERE x.product_int_id = p.id'),
  dataStreamCount: count('FROM data_streams s WHERE s.product_int_id = p.id'),
  itemCount: count('FROM product_resources r WHERE r.product_int_id = p.id'),
  ...audit('p'),
} as const satisfies FieldTable

export type ProductRecord = RecordOf<typeof PRODUCT_TABLE>
/** Everything a product write stores, under its wire names. */
export type ProductFields = z.output<z.ZodObject<WriteShape<typeof PRODUCT_TABLE>>>

/** A group (`g`) of devices of one product (`p`). */
export const GROUP_TABLE = {
  id: { sql: 'g.id', read: int },
  groupName: { sql: 'g.group_name', column: 'group_name', type: str, filter: 'text' },
  /** Generated on create, immutable. */
  groupID: { sql: 'g.group_id', read: str, filter: 'text' },
  productID: { sql: 'p.product_id', read: str, filter: 'text' },
  description: {
    sql: 'g.description',
    column: 'description',
    type: str.nullable(),
    filter: 'text',
  },
  productName: { sql: 'p.product_name', read: str },
  productIntID: { sql: 'g.product_int_id', column: 'product_int_id', type: int },
  deviceCount: count('FROM group_devices gd WHERE gd.group_int_id = g.id'),
  ...audit('g'),
} as const satisfies FieldTable

export type GroupRecord = RecordOf<typeof GROUP_TABLE>
/** Everything a group write stores, under its wire names. */
export type GroupFields = z.output<z.ZodObject<WriteShape<typeof GROUP_TABLE>>>

/** A member of a group (`d`, its product `p`): the device fields a member list answers. */
export const GROUP_MEMBER_TABLE = {
  id: { sql: 'd.id', read: int },
  deviceName: { sql: 'd.device_name', read: str, filter: 'text' },
  deviceID: { sql: 'd.device_id', read: str, filter: 'text' },
  deviceType: { sql: 'd.device_type', read: int.nullable(), label: 'deviceType' },
  deviceStatus: { sql: 'd.device_status', read: int, label: 'deviceStatus' },
  /** The same value as deviceStatus, under Variant A's member name. */
  status: { sql: 'd.device_status', read: int, label: 'deviceStatus' },
  productID: { sql: 'p.product_id', read: str },
  productName: { sql: 'p.product_name', read: str },
  createAt: { sql: 'd.create_at', time: true, read: int },
} as const satisfies FieldTable

export type GroupMemberRecord = RecordOf<typeof GROUP_MEMBER_TABLE>
