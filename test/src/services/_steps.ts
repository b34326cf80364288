/** What the step tests of src/services share. */
import type { IngestDevice } from '../../../store/types.ts'

/** The domain error a step throws, as its class name and field errors (undefined when it does not throw). */
export const thrown = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return { name: (e as Error).constructor.name, errors: (e as { errors: unknown }).errors }
  }
  return undefined
}

/** A fixed time (2026-01-01T00:00:00Z) and the caller the step tests act as. */
export const T = Date.UTC(2026, 0, 1, 0, 0, 0)
export const ann = { tenant: 't1', userIntID: 2, username: 'ann' }

/** A device of product `p` (id 1) as the ingest path reads it. */
export const ingestDevice = (id: number, deviceID: string, tenantID = 't1'): IngestDevice => ({
  id,
  tenantID,
  kind: 'device',
  deviceID,
  deviceName: deviceID,
  deviceUsername: deviceID,
  token: 'x',
  authType: 1,
  blocked: 0,
  productIntID: 1,
  productID: 'p',
  cloudProtocol: 1,
  gatewayIntID: null,
  parentDeviceIntID: null,
})
