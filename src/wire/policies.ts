import { Policy, PolicyCandidateDevice, PolicyDevice, PolicyListItem } from '../schemas/policies.ts'
import { createSerializer } from './shape.ts'

export const policyWire = createSerializer(
  { detail: Policy, list: PolicyListItem },
  {
    labels: { access: 'access', allow: 'allow' },
    times: ['createAt', 'updateAt'],
    json: ['mqtt_acl'],
  },
)

/** Devices bound to a policy, and devices that can still be bound. */
export const policyDeviceWire = createSerializer(
  { bound: PolicyDevice, candidate: PolicyCandidateDevice },
  { labels: { deviceType: 'deviceType' } },
)
