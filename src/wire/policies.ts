import {
  POLICY_CANDIDATE_TABLE,
  POLICY_DETAIL_TABLE,
  POLICY_DEVICE_TABLE,
  POLICY_TABLE,
  type PolicyCandidateRecord,
  type PolicyDetailRecord,
  type PolicyDeviceRecord,
  type PolicyRecord,
} from '../../store/fields/access.ts'
import { Policy, PolicyCandidateDevice, PolicyDevice, PolicyListItem } from '../schemas/policies.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const policyWire = {
  ...recordSerializer<PolicyDetailRecord>()({ detail: Policy }, wireSpecOf(POLICY_DETAIL_TABLE)),
  ...recordSerializer<PolicyRecord>()({ list: PolicyListItem }, wireSpecOf(POLICY_TABLE)),
}

/** Devices bound to a policy, and devices that can still be bound. */
export const policyDeviceWire = {
  ...recordSerializer<PolicyDeviceRecord>()(
    { bound: PolicyDevice },
    wireSpecOf(POLICY_DEVICE_TABLE),
  ),
  ...recordSerializer<PolicyCandidateRecord>()(
    { candidate: PolicyCandidateDevice },
    wireSpecOf(POLICY_CANDIDATE_TABLE),
  ),
}
