import type { DeviceRecord, ListArgs, MetaStore, Page } from '../../store/types.ts'
import type { DeviceUpdate } from '../schemas/devices.ts'
import type { PublicEndpoints } from '../kernel/endpoints.ts'
import type { Services } from './index.ts'
import type { Actor } from './types.ts'

/** What the device access of a variant is built over. */
export interface DeviceAccessDeps {
  meta: MetaStore
  services: Services
  endpoints: PublicEndpoints
}

/**
 * The devices resource as a wire shape sees it: reads return rows under the shape's field names, writes take a
 * body its own schema validated. The device routes call these, whichever shape is served; `R` is the record
 * a read answers (a stored device, plus what the shape adds).
 */
export interface DeviceAccess<R extends DeviceRecord = DeviceRecord> {
  list(tenant: string, query: ListArgs, opts: { groupID?: string }): Promise<Page<R>>
  get(tenant: string, id: number): Promise<R>
  create(a: Actor, body: unknown): Promise<R>
  update(a: Actor, id: number, body: unknown): Promise<R>
  remove(a: Actor, ids: number[]): Promise<void>
}

/** Variant A: devices are the `device` rows; the body is the device body of Variant A. */
export function deviceAccessA({ meta, services }: DeviceAccessDeps): DeviceAccess {
  return {
    list: (tenant, query, opts) => meta.devices.list(tenant, query, opts),
    get: (tenant, id) => meta.devices.get(tenant, id),
    create: (a, body) => services.devices.create(a, body as DeviceUpdate),
    update: (a, id, body) => services.devices.update(a, id, body as DeviceUpdate),
    remove: (a, ids) => services.devices.remove(a, ids),
  }
}
