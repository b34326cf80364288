import type { ListArgs } from '../../store/types.ts'
import type { DeviceUpdate } from '../schemas/devices.ts'
import type { GatewayUpdate } from '../schemas/gateways.ts'
import type { ReportProgress } from '../tasks.ts'
import { exportDevices, type ExportOptions } from './device-export.ts'
import { importDevices } from './device-import.ts'
import { prepareDevice, prepareGateway } from './device-input.ts'
import { readEach, type Actor, type ServiceDeps } from './types.ts'

type Kind = 'device' | 'gateway'

/** What the device events need of a stored device or gateway. */
type Stored = { id: number; deviceID: string; blocked: number }

/**
 * Devices and gateways: every create and edit rule, generated credentials, and deletes that leave nothing behind
 * (the stores remove links, logs, events and alerts with the record; stored values go from the telemetry store).
 * Announces `device.created`, `device.changed` (ingest drops cached identities and kicks a blocked device) and
 * `device.deleted` (ingest closes the session and forgets the device) after each commit.
 */
export function deviceService({ meta, telemetry, events }: ServiceDeps) {
  const ref = (a: Actor, kind: Kind, row: Stored) => ({
    tenantID: a.tenant,
    id: row.id,
    deviceID: row.deviceID,
    kind,
  })
  const created = <R extends Stored>(a: Actor, kind: Kind, row: R) => {
    events.emit('device.created', ref(a, kind, row))
    return row
  }
  const changed = <R extends Stored>(a: Actor, kind: Kind, row: R) => {
    events.emit('device.changed', { ...ref(a, kind, row), blocked: row.blocked === 1 })
    return row
  }

  /** Deletes all of `ids` or none, then their stored values, then announces each. */
  async function remove(a: Actor, kind: Kind, ids: number[]) {
    const repo = kind === 'device' ? meta.devices : meta.devices.gateways
    const gone = await readEach<Stored>(ids, (id) => repo.get(a.tenant, id))
    await repo.delete(a.tenant, ids)
    for (const row of gone) {
      await telemetry.deleteDevice(a.tenant, row.deviceID)
      events.emit('device.deleted', ref(a, kind, row))
    }
  }

  const devices = {
    async create(a: Actor, body: DeviceUpdate) {
      const fields = await prepareDevice(meta.devices, a.tenant, body)
      return created(a, 'device', await meta.devices.create(a.tenant, a.userIntID, fields))
    },
    async update(a: Actor, id: number, body: DeviceUpdate) {
      const current = await meta.devices.current(a.tenant, id)
      const fields = await prepareDevice(meta.devices, a.tenant, body, current)
      return changed(a, 'device', await meta.devices.update(a.tenant, id, fields))
    },
    /** Refused (Referenced) while a device has child devices that are not deleted with it. */
    remove: (a: Actor, ids: number[]) => remove(a, 'device', ids),
    /**
     * Writes the devices `query` selects as the CSV file of export task `taskID`; tokens only when `opts.secrets`
     * (the caller may read them); the tenant keeps its `opts.keep` newest files.
     */
    export: (
      a: Actor,
      taskID: string,
      query: ListArgs & { groupID?: string },
      report: ReportProgress,
      opts: ExportOptions,
    ) => exportDevices(meta, a.tenant, taskID, query, report, opts),
    /** Creates one device per CSV record, each checked as a create is; a failing row creates nothing. */
    import: (a: Actor, records: Array<Record<string, string>>, report: ReportProgress) =>
      importDevices((body) => devices.create(a, body), records, report),
  }

  const gateways = {
    async create(a: Actor, body: GatewayUpdate) {
      const fields = await prepareGateway(meta.devices, a.tenant, body)
      return created(
        a,
        'gateway',
        await meta.devices.gateways.create(a.tenant, a.userIntID, fields),
      )
    },
    async update(a: Actor, id: number, body: GatewayUpdate) {
      const current = await meta.devices.gateways.current(a.tenant, id)
      const fields = await prepareGateway(meta.devices, a.tenant, body, current)
      return changed(a, 'gateway', await meta.devices.gateways.update(a.tenant, id, fields))
    },
    /** Refused (Referenced) while devices hang off a gateway. */
    remove: (a: Actor, ids: number[]) => remove(a, 'gateway', ids),
  }

  return { devices, gateways }
}
