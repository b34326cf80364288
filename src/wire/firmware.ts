import { FIRMWARE_TABLE } from '../../store/fields/firmware.ts'
import { Firmware } from '../schemas/firmware.ts'
import { tableSerializer } from './shape.ts'

/** A firmware package on the wire (both variants): times in the service's zone. */
export const firmwareWire = tableSerializer(FIRMWARE_TABLE, { detail: Firmware })
