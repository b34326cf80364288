import { EventEmitter } from 'node:events'

/**
 * In-process notifications from the API to ingest: a device's credentials or blocked flag changed (the broker
 * drops cached identities and kicks a blocked device), a device was deleted, a product's model (data points,
 * streams) changed (the uplink decoder drops its cached model), a policy or subscription binding changed.
 */
export interface BusEvents {
  'device.changed': [{ tenantID: string; id: number; deviceID: string }]
  'device.deleted': [{ tenantID: string; id: number; deviceID: string }]
  'model.changed': [{ tenantID: string; productIntID: number }]
  'acl.changed': [{ tenantID: string; deviceIntIDs: number[] | 'all' }]
}

export class Bus extends EventEmitter<BusEvents> {}
