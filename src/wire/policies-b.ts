import { PolicyCandidateDevice } from '../schemas/policies.ts'
import { PolicyDevice } from '../schemas/policies-b.ts'
import { deviceTypeB } from '../services/device-access-b.ts'
import { createSerializer, type Row, type WireCtx } from './shape.ts'

const forms = createSerializer(
  { bound: PolicyDevice, candidate: PolicyCandidateDevice },
  { labels: { deviceType: 'deviceTypeVariantB' } },
)

/** Devices bound to a policy, labelled with Variant B's deviceType (a gateway is 1). */
export const policyDeviceWire = {
  bound: (record: object, ctx: WireCtx): Row => {
    const row = record as Row
    return forms.bound({ ...row, deviceType: deviceTypeB(row) }, ctx)
  },
  candidate: forms.candidate,
}
