import type { CommandInput } from '../../store/types.ts'

/** A command queued for device d-{tenant} (record 1) of the tenant, `extra` over it. */
export const commandInput = (
  tenantID: string,
  taskID: string,
  extra: Partial<CommandInput> = {},
): CommandInput => ({
  tenantID,
  taskID,
  deviceIntID: 1,
  deviceID: `d-${tenantID}`,
  deviceName: 'd',
  topic: 'inbox',
  payload: 'x',
  qos: 1,
  timeoutMs: 1000,
  expiresAt: null,
  status: 'queued',
  dispatchAt: null,
  ...extra,
})
