import type { ListArgs, Page } from '../list.ts'
import type { GroupFields, GroupMemberRecord, GroupRecord } from '../fields/products.ts'
import type {
  CertDetailRecord,
  CertFields,
  CertDeviceRecord,
  CertRecord,
  PolicyCandidateRecord,
  PolicyDetailRecord,
  PolicyDeviceRecord,
  PolicyFields,
  PolicyRecord,
  SubscriptionFields,
  SubscriptionRecord,
} from '../fields/access.ts'

export type { GroupMemberRecord, GroupRecord } from '../fields/products.ts'
export type {
  CertDetailRecord,
  CertDeviceRecord,
  CertRecord,
  PolicyCandidateRecord,
  PolicyDetailRecord,
  PolicyDeviceRecord,
  PolicyRecord,
  SubscriptionFields,
  SubscriptionRecord,
} from '../fields/access.ts'
import type { CertAndKey } from '../../src/kernel/pki.ts'
import type { TableRepository } from './table.ts'

/** The fields of a group a caller sets (store/fields/products.ts); the product is named by its productID. */
export type GroupInput = Partial<Pick<GroupFields, 'groupName' | 'description'>> & {
  productID?: string
}

/**
 * Groups of a tenant with their member counts: each bundles devices of one product (members: `members`). The
 * product may change only while the group is empty (Invalid('productID')); a delete is refused (Referenced)
 * while a group still has devices.
 */
export interface GroupRepository extends TableRepository<GroupRecord, GroupRecord, GroupInput> {
  readonly members: GroupMemberRepository
  /** Creates a group with a generated groupID; the product is named by its productID (NotFound('productID')). */
  create(
    tenant: string,
    userIntID: number | null,
    g: Required<Pick<GroupInput, 'productID' | 'groupName'>> & GroupInput,
  ): Promise<GroupRecord>
}

/** A page of the records linked to the tenant's record `ownerIntID` (NotFound when it is not the tenant's). */
type LinkedPage<R> = (tenant: string, ownerIntID: number, q: ListArgs) => Promise<Page<R>>

/** Links records `ids` to the tenant's record `ownerIntID`, or unlinks them (NotFound when it is not the tenant's). */
type LinkChange<T = void> = (tenant: string, ownerIntID: number, ids: number[]) => Promise<T>

/** What adding members answers. */
export interface MembersAdded {
  groupIntID: number
  groupID: string
  /** Members that were new. */
  added: number
  /** Members now. */
  deviceCount: number
}

/** Members of groups: devices (kind 'device') of the group's product. */
export interface GroupMemberRepository {
  /** A page of the group's devices. */
  list: LinkedPage<GroupMemberRecord>
  /**
   * Adds devices to the group; members already there stay (idempotent). Every id must be a device of the tenant
   * (else NotFound `ids`) of the group's product (else Invalid `ids`).
   */
  add: LinkChange<MembersAdded>
  /** Removes devices from the group, all or none: an id that is not a member is NotFound `ids`. */
  remove: LinkChange
  /** Devices of the group's product not in the group, newest first, capped, as select options. */
  notJoined(
    tenant: string,
    groupIntID: number,
    nameLike?: string,
  ): Promise<Array<{ label: string; value: number }>>
}

/** The fields of a policy a caller sets (store/fields/access.ts). */
export type PolicyInput = Partial<PolicyFields>

/** A policy rule bound to a device: a topic filter relative to its mountpoint. */
export interface AclRule {
  topic: string
  /** 0 publish, 1 subscribe, 2 both (enum `access`). */
  access: number
  /** 0 deny, 1 allow (enum `allow`). */
  allow: number
}

/**
 * Topic access policies of a tenant; bindings to devices (both directions) are in `bindings`. `get` answers a
 * policy with its bound devices as `mqtt_acl` (JSON text); a delete is refused (Referenced) while a policy is
 * bound to devices.
 */
export interface PolicyRepository extends TableRepository<
  PolicyRecord,
  PolicyDetailRecord,
  PolicyInput
> {
  readonly bindings: PolicyBindingRepository
  /** Creates a policy; the name is unique in the tenant (Conflict `name`). */
  create(
    tenant: string,
    userIntID: number | null,
    p: Required<Omit<PolicyInput, 'description'>> & PolicyInput,
  ): Promise<PolicyDetailRecord>
  /** The rules of the tenant's policies bound to device (or gateway) `deviceIntID`, for the broker's ACL. */
  rulesOfDevice(tenant: string, deviceIntID: number): Promise<AclRule[]>
}

/**
 * Bindings of policies to devices (devices and gateways alike), seen from either side. Binding is idempotent;
 * unbinding is all or none. Every id is checked against the caller's tenant first.
 */
export interface PolicyBindingRepository {
  /** A page of the devices bound to the tenant's policy `policyIntID`. */
  devices: LinkedPage<PolicyDeviceRecord>
  /** Binds devices to a policy; an id that is not a device of the tenant is NotFound `devicesIntID`. */
  bindDevices: LinkChange
  /** Unbinds devices from a policy; an id not bound to it is NotFound `ids`. */
  unbindDevices: LinkChange
  /** A page of the tenant's devices not bound to the policy; `groupNameLike` keeps devices of a matching group. */
  candidateDevices(
    tenant: string,
    policyIntID: number,
    q: ListArgs,
    groupNameLike?: string,
  ): Promise<Page<PolicyCandidateRecord>>
  /** A page of the policies bound to the tenant's device `deviceIntID`. */
  policies: LinkedPage<PolicyRecord>
  /** Binds policies to a device; an id that is not a policy of the tenant is NotFound `ids`. */
  bindPolicies: LinkChange
  /** Unbinds policies from a device; an id not bound to it is NotFound `ids`. */
  unbindPolicies: LinkChange
  /** A page of the tenant's policies not yet bound to the device. */
  candidatePolicies(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<PolicyRecord>>
}

/** Proxy subscriptions of devices: stored here, applied by the broker when the device connects. */
export interface SubscriptionRepository {
  /** A page of the subscriptions of the tenant's device; NotFound when the device is not the tenant's. */
  list(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<SubscriptionRecord>>
  /** Every subscription of a device (for the broker), oldest first. */
  ofDevice(deviceIntID: number): Promise<SubscriptionFields[]>
  /** Adds a subscription; a topic the device already has is Conflict `topic`. */
  create(tenant: string, deviceIntID: number, s: SubscriptionFields): Promise<SubscriptionRecord>
  /** Deletes subscriptions of the device, all or none (NotFound `ids`). */
  delete(tenant: string, deviceIntID: number, ids: number[]): Promise<void>
}

/** What a caller sets of a certificate (store/fields/access.ts); the rest is issued. */
export type CertInput = Pick<CertFields, 'name' | 'enable'> & {
  /** Common name of the client certificate; a random 16-character id when absent. */
  CN?: string | null
}

/**
 * Certificates of a tenant, the tenant's CA that signs them, and their bindings to devices (an authType 2 device
 * presents a client certificate whose CN is that of an enabled, bound certificate). A list answers id, name,
 * enable and createAt, `get` the PEM texts too; an edit sets name and enable only (the rest is fixed when it is
 * issued); a delete is refused (Referenced) while a certificate is bound to devices.
 */
export interface CertRepository extends TableRepository<
  CertRecord,
  CertDetailRecord,
  Partial<Pick<CertInput, 'name' | 'enable'>>
> {
  /** The certificate (PEM) of the tenant's CA, if it has one yet (the broker verifies client certificates). */
  caCert(tenant: string): Promise<string | undefined>
  /** The tenant's CA (certificate and key), created on first use; concurrent first uses agree on one. */
  ca(tenant: string): Promise<CertAndKey>
  /** Issues a key pair and a client certificate signed by the tenant's CA and stores them; Conflict('name'). */
  create(tenant: string, userIntID: number | null, input: CertInput): Promise<CertDetailRecord>
  /** A page of the devices bound to certificate `id` ({id, deviceID, deviceName}). */
  devices: LinkedPage<CertDeviceRecord>
  /** Binds devices of the tenant to certificate `id`; binding twice is no change; NotFound('devicesIntID'). */
  bindDevices: LinkChange
  /** Unbinds devices from certificate `id`: all or none; NotFound('ids') for one not bound. */
  unbindDevices: LinkChange
  /** The CNs of the enabled certificates of the device's own tenant bound to it, for the broker. */
  certsForDevice(deviceIntID: number): Promise<string[]>
}
