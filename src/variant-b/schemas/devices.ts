/**
 * Variant B of devices: the earlier, simpler shape. `deviceType` 0 terminal / 1 gateway / 2 smartphone, `status`
 * in place of `deviceStatus`, `location` a string, the broker addresses in detail.
 */
import { z } from 'zod'
import {
  annotate,
  enumCode,
  intID,
  name,
  text,
  Int,
  Label,
  NullableInt,
  NullableStr,
  Str,
  Timestamp,
} from '../../schemas/common.ts'
import { credentialFields, describedFields, describedText } from '../../schemas/devices.ts'
import type { FilterFields } from '../../http/paging.ts'
import { enumDoc } from '../../enums.ts'

const broker = NullableStr.meta({
  description: 'host:port; null when that listener does not exist',
})

/** Device detail (Variant B). `gateway`: the record id of the gateway (a deviceType 1 device) it hangs off. */
export const Device = z.object({
  id: Int,
  deviceID: Str,
  deviceName: Str,
  deviceUsername: Str,
  token: NullableStr.meta({ description: "the device's token; null for viewers" }),
  authType: NullableInt,
  authTypeLabel: Label,
  blocked: Int,
  deviceType: Int,
  deviceTypeLabel: Label,
  status: Int.meta(enumDoc('deviceStatus')),
  statusLabel: Label,
  gateway: NullableInt,
  productID: Str,
  productName: Str,
  ...describedText,
  location: NullableStr.meta({ description: 'installation place' }),
  clientIP: NullableStr,
  connectedAt: Timestamp,
  keepAlive: NullableInt,
  lastSeenAt: Timestamp.meta({
    description: 'last uplink or connect (written at most once a minute per device)',
  }),
  stateDelta: Int.meta({
    description:
      "1 while the device's desired state differs from what it reported (its state delta is not empty)",
  }),
  mqttBroker: broker,
  mqttsBroker: broker.meta({ description: 'MQTT over TLS, host:port' }),
  mqttssBroker: broker.meta({
    description: 'MQTT over mutual TLS (client certificates), host:port',
  }),
  coapBroker: broker,
  coapsBroker: broker,
  coapssBroker: broker,
  createUser: NullableStr,
  tenantID: Str,
  userIntID: NullableInt,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/** The list form: without the connection fields, the broker addresses and createUser. */
export const DeviceListItem = Device.omit({
  clientIP: true,
  connectedAt: true,
  keepAlive: true,
  mqttBroker: true,
  mqttsBroker: true,
  mqttssBroker: true,
  coapBroker: true,
  coapsBroker: true,
  coapssBroker: true,
  createUser: true,
})

/** Create and edit answer the detail form. */
export const DeviceWrite = Device

// Variant A's descriptive body fields without the console ones; location is a string here
const {
  deviceConsoleIP: _ip,
  deviceConsolePort: _port,
  deviceConsoleUsername: _user,
  location: _location,
  ...describedStrings
} = describedFields

/** The descriptive body fields of Variant B (src/variant-b/http/devices.ts passes them on as they are). */
export const described = { ...describedStrings, location: text(500) }

/**
 * Create (Variant B). deviceID and deviceUsername are generated (36 characters) when omitted. `gateway`: a
 * terminal (deviceType 0) may hang off a gateway, given by its record id.
 */
export const DeviceCreate = z.object({
  deviceName: name(50),
  productID: name(64),
  deviceType: enumCode('deviceTypeVariantB'),
  authType: enumCode('authType'),
  ...credentialFields,
  gateway: intID.nullish(),
  ...described,
})
annotate(DeviceCreate, {
  examples: [{ deviceName: 'thermometer-1', productID: 'pT8kZ3wQ', deviceType: 0, authType: 1 }],
})

/**
 * Edit (Variant B): these fields only; the rest of a record sent back as read is ignored. A device cannot become
 * a gateway, nor a gateway a device.
 */
export const DeviceUpdate = z.object({
  deviceName: name(50).optional(),
  deviceType: enumCode('deviceTypeVariantB').optional(),
  authType: enumCode('authType').optional(),
  blocked: enumCode('blocked').optional(),
  gateway: intID.nullish(),
  ...described,
})

/**
 * List filters: `_like` on names and ids; deviceType (the Variant B code, compared exactly), productID,
 * `gateway` (the devices hanging off that gateway), `stateDelta` (1: not in their desired state) and `softVersion`
 * (the firmware version they run).
 */
export const deviceFilters = {
  deviceName: 'text',
  deviceID: 'text',
  deviceType: 'int',
  productID: 'text',
  gateway: 'int',
  stateDelta: 'int',
  softVersion: 'text',
} satisfies FilterFields

/** `groupID`: devices that are members of the group with that groupID. */
export const deviceListExtra = { groupID: z.string().optional() }

export type DeviceCreateB = z.infer<typeof DeviceCreate>
export type DeviceUpdateB = z.infer<typeof DeviceUpdate>
