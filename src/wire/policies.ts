import {
  POLICY_CANDIDATE_TABLE,
  POLICY_DETAIL_TABLE,
  POLICY_DEVICE_TABLE,
  POLICY_TABLE,
} from '../../store/fields/access.ts'
import { Policy, PolicyCandidateDevice, PolicyDevice, PolicyListItem } from '../schemas/policies.ts'
import { tableSerializer } from './shape.ts'

export const policyWire = {
  ...tableSerializer(POLICY_DETAIL_TABLE, { detail: Policy }),
  ...tableSerializer(POLICY_TABLE, { list: PolicyListItem }),
}

/** Devices bound to a policy, and devices that can still be bound. */
export const policyDeviceWire = {
  ...tableSerializer(POLICY_DEVICE_TABLE, { bound: PolicyDevice }),
  ...tableSerializer(POLICY_CANDIDATE_TABLE, { candidate: PolicyCandidateDevice }),
}
