import { z } from 'zod'
import { enumDoc } from '../enums.ts'
import { enumCode, intID, intIn, name, text, NullableStr, Timestamp } from './common.ts'
import { annotate, responseSchema } from './common.ts'
import { DEVICE_TABLE } from '../../store/fields/devices.ts'
import { filterFields } from '../../store/fields/table.ts'

/** The descriptive strings devices and gateways answer (both variants), in this order. */
export const describedText = responseSchema(
  DEVICE_TABLE,
  'manufacturer serialNumber softVersion hardwareVersion description',
).shape

/** What devices and gateways (`what`) answer beyond their table types: the descriptions of a few fields. */
export const connectionDocs = (what: 'device' | 'gateway') => ({
  token: NullableStr.meta({ description: `the ${what}'s token; null for viewers` }),
  location: z.unknown().meta({ description: 'JSON object or string' }),
  lastSeenAt: Timestamp.meta({
    description: `last uplink or connect (written at most once a minute per ${what})`,
  }),
  stateDelta: z
    .number()
    .int()
    .meta({
      description: `1 while the ${what}'s desired state differs from what it reported (its state delta is not empty)`,
    }),
})

/** Device, detail form: every field. */
export const Device = responseSchema(
  DEVICE_TABLE,
  [
    'id deviceID deviceName deviceUsername token authType authTypeLabel blocked deviceStatus',
    'deviceStatusLabel deviceType deviceTypeLabel upLinkSystem upLinkSystemLabel gateway gatewayName',
    'parentDevice parentDeviceName productID productIntID productName cloudProtocol cloudProtocolLabel',
    'modBusIndex carrier carrierLabel physicalNetwork physicalNetworkLabel IMEI IMSI autoSub',
    'manufacturer serialNumber softVersion hardwareVersion description deviceConsoleIP',
    'deviceConsolePort deviceConsoleUsername latitude longitude location lora metaData scopes',
    'clientIP connectedAt keepAlive lastSeenAt stateDelta createUser tenantID userIntID createAt updateAt',
  ],
  connectionDocs('device'),
)

/** The list form omits clientIP, connectedAt, createUser, gatewayName, keepAlive and parentDeviceName. */
export const DeviceListItem = Device.omit({
  clientIP: true,
  connectedAt: true,
  createUser: true,
  gatewayName: true,
  keepAlive: true,
  parentDeviceName: true,
})

/**
 * The write form: the stored record without label fields, productIntID and productName; parentDeviceName is in
 * detail and write answers, the other detail-only fields are not (nor stateDelta, which only the state changes). Create and edit answer this form.
 */
export const DeviceWrite = Device.omit({
  authTypeLabel: true,
  deviceStatusLabel: true,
  deviceTypeLabel: true,
  upLinkSystemLabel: true,
  cloudProtocolLabel: true,
  carrierLabel: true,
  physicalNetworkLabel: true,
  productIntID: true,
  productName: true,
  gatewayName: true,
  clientIP: true,
  connectedAt: true,
  keepAlive: true,
  lastSeenAt: true,
  stateDelta: true,
  createUser: true,
})

const hex = (n: number) =>
  z.string({ error: `must be ${n} hex characters` }).regex(new RegExp(`^[0-9A-Fa-f]{${n}}$`), {
    error: `must be ${n} hex characters`,
  })

/** A number that may arrive as a numeric string, within [min, max]. */
const bounded = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
    z
      .number({ error: `must be a number from ${min} to ${max}` })
      .min(min, { error: `must be a number from ${min} to ${max}` })
      .max(max, { error: `must be a number from ${min} to ${max}` }),
  )

/** The formats of the LoRa members; which members are required is a rule (src/rules). */
export const Lora = z.looseObject({
  type: z.enum(['otaa', 'abp'], { error: 'must be otaa or abp' }).nullish(),
  appEUI: hex(16).nullish(),
  appKey: hex(32).nullish(),
  nwkSKey: hex(32).nullish(),
  appSKey: hex(32).nullish(),
  region: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(32)
    .nullish(),
  fcntUp: intIn(0, 4294967295).nullish(),
  fcntDown: intIn(0, 4294967295).nullish(),
  fcntCheck: z
    .union([z.number().int(), z.boolean()], { error: 'must be an integer or a boolean' })
    .nullish(),
  canJoin: z
    .union([z.boolean(), z.number().int()], { error: 'must be a boolean or an integer' })
    .nullish(),
})

/** deviceID is the MQTT client id and part of every topic: no `/`, `+`, `#`. */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/

const credential = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `at most ${max} characters` })

/** Credentials: generated (36 characters) when omitted, immutable afterwards. Shared with gateways. */
export const credentialFields = {
  deviceID: z
    .string({ error: 'must be a string' })
    .regex(DEVICE_ID_PATTERN, { error: '1 to 64 characters of A-Z a-z 0-9 _ . : -' })
    // its topic prefix would hold every group topic of its product
    .refine((id) => id !== 'group', { error: '"group" is reserved' })
    .meta({ not: { const: 'group' } })
    .nullish(),
  deviceUsername: credential(100).nullish(),
  token: credential(100).nullish(),
}

/** Fields devices and gateways share: descriptive strings, console, location. */
export const describedFields = {
  manufacturer: text(100),
  serialNumber: text(100),
  softVersion: text(100),
  hardwareVersion: text(100),
  description: text(300),
  deviceConsoleIP: text(100),
  deviceConsolePort: intIn(1, 65535).nullish(),
  deviceConsoleUsername: text(100),
  location: z
    .union([z.record(z.string(), z.unknown()), z.string().max(500)], {
      error: 'must be a JSON object or a string',
    })
    .nullish(),
}

/** Create device body fields (the cross-field rules are checked in src/rules/devices.ts). */
export const DeviceCreate = z.object({
  productID: name(64),
  deviceName: name(50),
  deviceType: enumCode('deviceType'),
  upLinkSystem: enumCode('upLinkSystem').nullish(),
  gateway: intID.nullish(),
  parentDevice: intID.nullish(),
  cloudProtocol: enumCode('cloudProtocol'),
  ...credentialFields,
  authType: enumCode('authType').nullish(),
  blocked: enumCode('blocked').optional(),
  modBusIndex: intIn(0, 255).nullish(),
  carrier: enumCode('carrier').nullish(),
  physicalNetwork: enumCode('physicalNetwork').nullish(),
  IMEI: text(32),
  IMSI: text(32),
  autoSub: enumCode('autoSub').nullish(),
  ...describedFields,
  latitude: bounded(-90, 90).nullish(),
  longitude: bounded(-180, 180).nullish(),
  lora: Lora.nullish(),
  metaData: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).nullish(),
  scopes: z.array(z.unknown(), { error: 'must be an array' }).nullish(),
})
annotate(DeviceCreate, {
  examples: [
    {
      productID: 'pT8kZ3wQ',
      deviceName: 'thermometer-1',
      deviceType: 1,
      upLinkSystem: 1,
      cloudProtocol: 1,
      authType: 1,
      description: 'Meeting room 2',
    },
  ],
})

/** Edit: the whole record as read may come back; absent fields keep their values, null clears optional ones. */
export const DeviceUpdate = DeviceCreate.partial()

/** List filters (and sort keys) of devices: the field table's. */
export const deviceFilters = filterFields(DEVICE_TABLE)

/** `groupID`: devices that are members of the group with that groupID. */
export const deviceListExtra = { groupID: z.string().optional() }

export type DeviceCreate = z.infer<typeof DeviceCreate>
export type DeviceUpdate = z.infer<typeof DeviceUpdate>
export type LoraInput = z.infer<typeof Lora>

/** The most devices one page of `devices_located` answers. */
export const MAX_LOCATED_PAGE = 5000

/** `GET /devices_located`: a page of the devices a map can place, by id. */
export const DevicesLocatedQuery = z.object({
  afterID: z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(0, { error: 'at least 0' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'too large' })
    .optional()
    .meta({
      description:
        'devices with a larger id: the `next` of the page before (0 or absent: from the first)',
    }),
  _limit: z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(1, { error: 'at least 1' })
    .max(MAX_LOCATED_PAGE, { error: `at most ${MAX_LOCATED_PAGE}` })
    .optional()
    .meta({
      description: `devices in the page, 1 to ${MAX_LOCATED_PAGE} (default ${MAX_LOCATED_PAGE})`,
    }),
})

/** A device a map can place: where it is (null: by its geolocation data point), whether it is online. */
export const LocatedDevice = z.object({
  id: z.number().int(),
  deviceID: z.string(),
  deviceName: z.string(),
  deviceStatus: z.number().int().meta(enumDoc('deviceStatus')),
  productID: z.string(),
  latitude: z.number().nullable(),
  longitude: z
    .number()
    .nullable()
    .meta({
      description:
        'null (with latitude) when the device has no position of its own: its product has a geolocation data point ' +
        '(pointDataType 6) whose latest value places it (`GET /devices_latest`)',
    }),
})

export const DevicesLocated = z.object({
  items: z.array(LocatedDevice),
  next: z.number().int().nullable().meta({
    description: 'the `afterID` of the next page; null on the last page',
  }),
})
