import type { AlertEvent, CommandEvent, DeviceRef, StateEvent } from '../../src/kernel/events.ts'
import type { OutboxInput, OutboxType } from './webhooks.ts'

/**
 * A domain event as the outbox stores it: its tenant, device, time and data (the payload without the tenant; a
 * device's record id as `deviceIntID`). The one shape of every stored event: the services build it for the store
 * call that commits the change the event announces (`outbox` arguments of the store ports).
 */
export function outboxOf(
  type: OutboxType,
  e: DeviceRef | CommandEvent | AlertEvent | StateEvent,
  now: number,
): OutboxInput {
  const { tenantID, ...rest } = e
  if ('kind' in e) {
    const { id, ...ref } = rest as Omit<DeviceRef, 'tenantID'>
    return {
      tenantID,
      type,
      time: now,
      deviceID: e.deviceID,
      data: JSON.stringify({ deviceIntID: id, ...ref }),
    }
  }
  return { tenantID, type, time: e.at, deviceID: e.deviceID, data: JSON.stringify(rest) }
}
