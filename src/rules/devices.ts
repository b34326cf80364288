/**
 * The cross-field rules of device and gateway creates and edits, as pure functions: each returns an errors object
 * naming every failing field (empty when all is well).
 */
import type { FieldErrors } from '../kernel/errors.ts'
import type { CredentialFields, DeviceFields, GatewayFields } from '../../store/types.ts'
import { DEVICE_TABLE, GATEWAY_TABLE } from '../../store/fields/devices.ts'
import { emptyValues } from '../../store/fields/table.ts'

export const Protocol = {
  MQTT: 1,
  CoAP: 2,
  LwM2M: 3,
  LoRa: 4,
  HTTP: 5,
  WebSocket: 6,
  Modbus: 7,
} as const
export const UpLink = { cloud: 1, gateway: 2, device: 3 } as const
export const TERMINAL = 1

/** A write before its missing credentials are generated. */
export type Draft<T extends CredentialFields> = Omit<T, keyof CredentialFields> & {
  [K in keyof CredentialFields]: string | null
}
export type DeviceDraft = Draft<DeviceFields>
export type GatewayDraft = Draft<GatewayFields>

export const CREDENTIALS = ['deviceID', 'deviceUsername', 'token'] as const

/** Every field of a device write with its value when nothing was given (from the field table). */
const EMPTY = emptyValues(DEVICE_TABLE) as DeviceDraft

/**
 * The body merged over the stored fields (an edit may send back the whole record as read):
 * absent fields keep their value, null clears, unknown fields are ignored.
 */
export function mergeDraft<T extends object>(empty: T, body: object, current: T | undefined): T {
  const out = { ...(current ?? empty) } as Record<string, unknown>
  const given = body as Record<string, unknown>
  for (const k of Object.keys(empty)) if (given[k] !== undefined) out[k] = given[k]
  return out as T
}

/** A device draft from a create or edit body. */
export const deviceDraft = (
  body: object,
  current: DeviceDraft | undefined,
  productIntID: number,
): DeviceDraft => ({
  ...mergeDraft(EMPTY, body, current),
  productIntID,
})

const EMPTY_GATEWAY = emptyValues(GATEWAY_TABLE) as GatewayDraft

/** A gateway draft from a create or edit body. */
export const gatewayDraft = (
  body: object,
  current: GatewayDraft | undefined,
  productIntID: number,
): GatewayDraft => ({
  ...mergeDraft(EMPTY_GATEWAY, body, current),
  productIntID,
})

const isLoraAbp = (d: DeviceDraft, protocol: number) =>
  protocol === Protocol.LoRa && d.lora?.type === 'abp'

/**
 * `gateway` matters when upLinkSystem is 2 or the device is LoRa abp,
 * `parentDevice` when upLinkSystem is 3. A link that does not apply is dropped, so an edit that moves a device to
 * the cloud may send back the stale link it read.
 */
export function keepApplicableLinks(d: DeviceDraft, protocol: number): DeviceDraft {
  const gatewayApplies = d.upLinkSystem === UpLink.gateway || isLoraAbp(d, protocol)
  return {
    ...d,
    gateway: gatewayApplies ? d.gateway : null,
    parentDevice: d.upLinkSystem === UpLink.device ? d.parentDevice : null,
  }
}

/** How a device reaches the platform: upLinkSystem and the link it needs. */
export function upLinkRules(d: DeviceDraft): FieldErrors {
  const errors: FieldErrors = {}
  // rule: a terminal (deviceType 1) needs upLinkSystem; other device types have none
  if (d.deviceType === TERMINAL && d.upLinkSystem === null)
    errors.upLinkSystem = 'required when deviceType is 1'
  if (d.deviceType !== TERMINAL && d.upLinkSystem !== null)
    errors.upLinkSystem = 'must be empty unless deviceType is 1'
  // rule: upLinkSystem 2 (through a gateway) needs gateway
  if (d.upLinkSystem === UpLink.gateway && d.gateway === null)
    errors.gateway = 'required when upLinkSystem is 2'
  // rule: upLinkSystem 3 (through a parent device) needs parentDevice
  if (d.upLinkSystem === UpLink.device && d.parentDevice === null)
    errors.parentDevice = 'required when upLinkSystem is 3'
  return errors
}

/**
 * parentDevice is a valid device: neither the device itself nor one
 * of its descendants. `ancestry` is the chain [parentDevice, its parent, ...] read from the store.
 */
export function parentRules(
  selfId: number | undefined,
  parentDevice: number | null,
  ancestry: number[],
): FieldErrors {
  if (parentDevice === null || selfId === undefined) return {}
  if (parentDevice === selfId) return { parentDevice: 'a device cannot be its own parent' }
  if (ancestry.includes(selfId))
    return { parentDevice: 'would make a cycle: the device is an ancestor of this parent' }
  return {}
}

/** cloudProtocol comes from the product: a given cloudProtocol must be the product's. */
export function cloudProtocolRule(given: number | undefined, productProtocol: number): FieldErrors {
  if (given === undefined || given === productProtocol) return {}
  return { cloudProtocol: `must be ${productProtocol}, the cloud protocol of the product` }
}

const missing = <D extends object>(
  errors: FieldErrors,
  d: D,
  fields: ReadonlyArray<keyof D & string>,
  why: string,
  prefix = '',
) => {
  for (const f of fields)
    if (d[f] === null || d[f] === undefined) errors[prefix + f] ??= `required ${why}`
}

/** The fields each cloud protocol requires in addition. */
export function protocolRules(d: DeviceDraft, protocol: number): FieldErrors {
  const errors: FieldErrors = {}
  switch (protocol) {
    case Protocol.MQTT:
    case Protocol.CoAP:
    case Protocol.HTTP:
    case Protocol.WebSocket:
      missing(errors, d, ['authType'], 'for this cloud protocol')
      break
    case Protocol.LwM2M:
      missing(errors, d, ['IMEI', 'autoSub'], 'for LwM2M products')
      break
    case Protocol.LoRa:
      Object.assign(errors, loraRules(d))
      break
    case Protocol.Modbus:
      // rule: a Modbus device needs modBusIndex and authType
      missing(errors, d, ['modBusIndex', 'authType'], 'for Modbus products')
      break
  }
  return errors
}

const DEV_EUI = /^[0-9A-Fa-f]{16}$/
const DEV_ADDR = /^[0-9A-Fa-f]{8}$/

/** LoRa devices: otaa or abp, each with its own members (member formats are checked by the schema). */
export function loraRules(d: DeviceDraft): FieldErrors {
  const errors: FieldErrors = {}
  const lora = d.lora ?? {}
  const type = lora.type
  if (type !== 'otaa' && type !== 'abp')
    return { 'lora.type': 'required for LoRa products: otaa or abp' }
  if (type === 'otaa') {
    if (d.deviceID === null)
      errors.deviceID = 'required for LoRa otaa: the DevEUI, 16 hex characters'
    else if (!DEV_EUI.test(d.deviceID)) errors.deviceID = 'must be the DevEUI: 16 hex characters'
    missing(errors, lora, ['appEUI', 'appKey', 'fcntCheck', 'canJoin'], 'for LoRa otaa', 'lora.')
  } else {
    if (d.gateway === null) errors.gateway = 'required for LoRa abp'
    if (d.deviceID === null)
      errors.deviceID = 'required for LoRa abp: the DevAddr, 8 hex characters'
    else if (!DEV_ADDR.test(d.deviceID)) errors.deviceID = 'must be the DevAddr: 8 hex characters'
    missing(
      errors,
      lora,
      ['region', 'nwkSKey', 'appSKey', 'fcntUp', 'fcntDown', 'fcntCheck'],
      'for LoRa abp',
      'lora.',
    )
  }
  return errors
}

/**
 * Credentials are generated when omitted and never change afterwards (deviceID is the MQTT client id and part of
 * every topic). Sending the stored value back is fine.
 */
export function credentialRules(
  current: Partial<CredentialFields> | undefined,
  body: object,
): FieldErrors {
  if (!current) return {}
  const given = body as Record<string, unknown>
  const errors: FieldErrors = {}
  for (const f of CREDENTIALS)
    if (given[f] !== undefined && given[f] !== null && given[f] !== current[f])
      errors[f] = 'cannot be changed'
  return errors
}

export interface DeviceRuleContext {
  /** The cloud protocol of the device's product. */
  protocol: number
  /** cloudProtocol as the body gave it. */
  givenProtocol: number | undefined
  /** The edited device; undefined on create. */
  selfId: number | undefined
  /** [parentDevice, its parent, ...] when parentDevice is set. */
  ancestry: number[]
}

/** Every field rule of a device write, collected. */
export function deviceRules(d: DeviceDraft, ctx: DeviceRuleContext): FieldErrors {
  return {
    ...protocolRules(d, ctx.protocol),
    ...upLinkRules(d),
    ...parentRules(ctx.selfId, d.parentDevice, ctx.ancestry),
    ...cloudProtocolRule(ctx.givenProtocol, ctx.protocol),
  }
}
