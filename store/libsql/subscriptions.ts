import type { Db } from './db.ts'
import type {
  ListArgs,
  Page,
  SubscriptionFields,
  SubscriptionRecord,
  SubscriptionRepository,
} from '../types.ts'
import { SUBSCRIPTION_TABLE } from '../fields/access.ts'
import { NotFound } from '../errors.ts'
import { listPage } from './list.ts'
import { deleteChecked } from './records.ts'
import { TableRepo } from './table-repository.ts'

/** Proxy subscriptions of devices: stored here, applied by the broker when the device connects. */
export class SubscriptionsRepo implements SubscriptionRepository {
  private readonly table: TableRepo<typeof SUBSCRIPTION_TABLE>

  constructor(private readonly db: Db) {
    this.table = new TableRepo(db, {
      list: SUBSCRIPTION_TABLE,
      from: 'FROM device_subscriptions s',
      unique: { topic: ['topic', 'the device already subscribes to this topic'] },
      remove: { nameColumn: 'topic', uses: {} },
    })
  }

  /** A page of the subscriptions of the tenant's device `deviceIntID`; NotFound when the device is not the tenant's. */
  async list(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<SubscriptionRecord>> {
    await this.device(tenant, deviceIntID)
    const ofDevice = { ...this.table.listSpec, where: 's.tenant_id = ? AND s.device_int_id = ?' }
    return listPage(this.db, ofDevice, [tenant, deviceIntID], q)
  }

  /** Every subscription of a device (for the broker), oldest first. */
  async ofDevice(deviceIntID: number): Promise<SubscriptionFields[]> {
    const rows = await this.db.all(
      'SELECT topic, qos FROM device_subscriptions WHERE device_int_id = ? ORDER BY id',
      [deviceIntID],
    )
    return rows.map((r) => ({ topic: String(r.topic), qos: Number(r.qos) }))
  }

  /** Adds a subscription; a topic the device already has is Conflict `topic`. */
  async create(
    tenant: string,
    deviceIntID: number,
    s: SubscriptionFields,
  ): Promise<SubscriptionRecord> {
    await this.device(tenant, deviceIntID)
    return this.table.insert(tenant, s, { device_int_id: deviceIntID })
  }

  /** Deletes subscriptions of the device, all or none: an id that is not one of them is NotFound `ids`. */
  async delete(tenant: string, deviceIntID: number, ids: number[]) {
    await this.device(tenant, deviceIntID)
    await deleteChecked(
      this.db,
      tenant,
      {
        table: 'device_subscriptions',
        nameColumn: 'topic',
        uses: {},
        scope: { column: 'device_int_id', value: deviceIntID },
        missing: (absent) => `no subscription ${absent.join(', ')} of this device`,
      },
      ids,
    )
  }

  /** NotFound unless `id` is a device or gateway of the tenant. */
  private async device(tenant: string, id: number) {
    if (!(await this.db.one('SELECT id FROM devices WHERE tenant_id = ? AND id = ?', [tenant, id])))
      throw new NotFound()
  }
}
