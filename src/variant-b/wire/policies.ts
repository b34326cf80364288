import { POLICY_DEVICE_TABLE, type PolicyDeviceRecord } from '../../../store/fields/access.ts'
import { PolicyDevice } from '../schemas/policies.ts'
import { deviceTypeB } from './devices.ts'
import { policyDeviceWire as policyDeviceWireA } from '../../wire/policies.ts'
import { recordSerializer, wireSpecOf, type WireCtx } from '../../wire/shape.ts'

const bound = recordSerializer<PolicyDeviceRecord>()(
  { bound: PolicyDevice },
  wireSpecOf(POLICY_DEVICE_TABLE, { labels: { deviceType: 'deviceTypeVariantB' } }),
)

/** Devices bound to a policy, labelled with Variant B's deviceType (a gateway is 1). */
export const policyDeviceWire = {
  bound: (record: PolicyDeviceRecord, ctx: WireCtx) =>
    bound.bound({ ...record, deviceType: deviceTypeB(record) }, ctx),
  candidate: policyDeviceWireA.candidate,
}
