import { ROLLOUT_DEVICE_TABLE, ROLLOUT_TABLE } from '../../store/fields/rollouts.ts'
import { Rollout, RolloutDevice } from '../schemas/rollouts.ts'
import { tableSerializer } from './shape.ts'

/** A firmware rollout on the wire (both variants): labels in the caller's language, times in the service's zone. */
export const rolloutWire = {
  ...tableSerializer(ROLLOUT_TABLE, { detail: Rollout }),
  ...tableSerializer(ROLLOUT_DEVICE_TABLE, { device: RolloutDevice }),
}
