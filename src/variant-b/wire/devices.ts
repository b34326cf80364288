import type { DeviceRecord } from '../../../store/fields/devices.ts'
import { Device, DeviceListItem, DeviceWrite } from '../schemas/devices.ts'
import { recordSerializer } from '../../wire/shape.ts'

/** The Variant B deviceType of a stored record (a device, a gateway read with the device columns, a member). */
export function deviceTypeB(row: { kind?: unknown; deviceType?: unknown }): number {
  if (row.kind === 'gateway') return 1
  return Number(row.deviceType) === 3 ? 2 : 0
}

/** Variant B's location is a string: a stored string as it is, stored JSON as its text. */
function locationText(stored: unknown): string | null {
  if (stored === null || stored === undefined) return null
  let v: unknown = stored
  if (typeof stored === 'string') {
    try {
      v = JSON.parse(stored)
    } catch {
      return stored
    }
  }
  return typeof v === 'string' ? v : JSON.stringify(v)
}

/** The broker addresses a Variant B detail answers: host:port, null when that listener does not exist. */
export type Brokers = Record<
  'mqttBroker' | 'mqttsBroker' | 'mqttssBroker' | 'coapBroker' | 'coapsBroker' | 'coapssBroker',
  string | null
>

/**
 * A stored device (device columns, any kind) in Variant B's fields: its deviceType as Variant B's code, `status`,
 * `location` as text, the broker addresses in details. What Variant B adds is optional, so a stored record is one.
 */
export type DeviceRecordB = DeviceRecord & Partial<{ status: number } & Brokers>

/** A stored record (device columns, any kind) → Variant B's fields; the broker addresses when `brokers` is given. */
export function recordB(row: DeviceRecord, brokers?: Brokers): DeviceRecordB {
  return {
    ...row,
    deviceType: deviceTypeB(row),
    status: row.deviceStatus,
    gateway: row.kind === 'gateway' ? null : (row.gateway ?? null),
    location: locationText(row.location),
    ...brokers,
  }
}

/** Device forms of Variant B over stored records in its fields (recordB). */
export const deviceWire = recordSerializer<DeviceRecordB>()(
  { detail: Device, list: DeviceListItem, write: DeviceWrite },
  {
    labels: { authType: 'authType', deviceType: 'deviceTypeVariantB', status: 'deviceStatus' },
    times: ['connectedAt', 'lastSeenAt', 'createAt', 'updateAt'],
    secret: ['token'],
  },
)
