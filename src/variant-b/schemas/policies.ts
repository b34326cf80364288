/** Variant B of the policy/device bindings: a bound device labelled with Variant B's deviceType. */
import { z } from 'zod'
import { Int, Label, Str } from '../../schemas/common.ts'

/** A device bound to a policy (GET /policies/{id}/devices). */
export const PolicyDevice = z.object({
  id: Int,
  deviceID: Str,
  deviceName: Str,
  deviceType: Int,
  deviceTypeLabel: Label,
})
