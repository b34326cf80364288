/**
 * Topic access, declared once: policies, their device bindings and devices' proxy subscriptions. store/libsql
 * selects, filters, sorts and writes them from these tables, their records are `RecordOf` these tables, and the
 * HTTP side takes its list filters, labels, times and request fields from them.
 */
import { z } from 'zod'
import { audit, int, listedDevice, productName, recordID, str, times } from './table.ts'
import type { FieldTable, RecordOf, WriteOf } from './table.ts'

/** The records these tables' reads answer and the fields their writes store. */
export type PolicyRecord = RecordOf<typeof POLICY_TABLE>
export type PolicyDetailRecord = RecordOf<typeof POLICY_DETAIL_TABLE>
export type PolicyFields = WriteOf<typeof POLICY_TABLE>
export type PolicyDeviceRecord = RecordOf<typeof POLICY_DEVICE_TABLE>
export type PolicyCandidateRecord = RecordOf<typeof POLICY_CANDIDATE_TABLE>
export type SubscriptionRecord = RecordOf<typeof SUBSCRIPTION_TABLE>
export type SubscriptionFields = WriteOf<typeof SUBSCRIPTION_TABLE>
export type CertRecord = RecordOf<typeof CERT_TABLE>
export type CertDetailRecord = RecordOf<typeof CERT_DETAIL_TABLE>
export type CertFields = WriteOf<typeof CERT_DETAIL_TABLE>
export type CertDeviceRecord = RecordOf<typeof CERT_DEVICE_TABLE>

/** A topic access policy (`x`, its creator `u`). */
export const POLICY_TABLE = {
  id: recordID('x'),
  name: { sql: 'x.name', column: 'name', type: str, filter: 'text' },
  /** A topic filter relative to the device's mountpoint. */
  topic: { sql: 'x.topic', column: 'topic', type: str, filter: 'text' },
  access: { sql: 'x.access', column: 'access', type: int, label: 'access', filter: 'int' },
  allow: { sql: 'x.allow', column: 'allow', type: int, label: 'allow', filter: 'int' },
  description: { sql: 'x.description', column: 'description', type: str.nullable() },
  ...audit('x'),
} as const satisfies FieldTable

/** A policy with its bound devices: `mqtt_acl` is one `{id}` per bound device, ordered by id (JSON text). */
export const POLICY_DETAIL_TABLE = {
  ...POLICY_TABLE,
  mqtt_acl: {
    sql: `(SELECT json_group_array(json_object('id', b.device_int_id)) FROM
  (SELECT device_int_id FROM policy_devices WHERE policy_int_id = x.id ORDER BY device_int_id) b)`,
    read: str,
    json: true,
  },
} as const satisfies FieldTable

/** A device (or gateway) bound to a policy (`d`). */
export const POLICY_DEVICE_TABLE = {
  ...listedDevice,
  kind: { sql: 'd.kind', read: z.enum(['device', 'gateway']) },
} as const satisfies FieldTable

/** A device that can still be bound to a policy (`d`, its product `p`). */
export const POLICY_CANDIDATE_TABLE = {
  id: recordID('d'),
  deviceName: listedDevice.deviceName,
  productName: { ...productName, filter: 'text' },
} as const satisfies FieldTable

/** A device's proxy subscription (`s`): applied by the broker when the device connects. */
export const SUBSCRIPTION_TABLE = {
  id: recordID('s'),
  /** A topic filter relative to the device's mountpoint. */
  topic: { sql: 's.topic', column: 'topic', type: str, filter: 'text' },
  qos: { sql: 's.qos', column: 'qos', type: int, filter: 'int' },
  ...times('s'),
} as const satisfies FieldTable

/** A client certificate (`c`) as a list reads it: no PEM texts, no join. */
export const CERT_TABLE = {
  id: recordID('c'),
  name: { sql: 'c.name', column: 'name', type: str, filter: 'text' },
  enable: {
    sql: 'c.enable',
    column: 'enable',
    type: int,
    label: 'certEnable',
    filter: 'int',
  },
  ...times('c'),
} as const satisfies FieldTable

/**
 * A certificate with its PEM texts and its creator (`u`). CN, cert, key and root are written once, when it is
 * issued; `key` is a secret on the wire.
 */
export const CERT_DETAIL_TABLE = {
  ...CERT_TABLE,
  CN: { sql: 'c.cn', column: 'cn', type: str },
  cert: { sql: 'c.cert', column: 'cert', type: str },
  key: { sql: 'c.key', column: 'key', type: str },
  root: { sql: 'c.root', column: 'root', type: str },
  userIntID: { sql: 'c.user_int_id', read: int.nullable() },
  createUser: { sql: 'u.username', read: str.nullable() },
} as const satisfies FieldTable

/** A device bound to a certificate (`d`; `cd` the binding). */
export const CERT_DEVICE_TABLE = {
  id: recordID('d'),
  deviceID: listedDevice.deviceID,
  deviceName: listedDevice.deviceName,
  /** When the device was bound. */
  createAt: { sql: 'cd.create_at', time: true, sort: true, read: int },
} as const satisfies FieldTable
