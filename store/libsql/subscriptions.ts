import type { Db } from './db.ts'
import type {
  ListArgs,
  Page,
  SubscriptionFields,
  SubscriptionRecord,
  SubscriptionRepository,
} from '../types.ts'
import { SUBSCRIPTION_TABLE } from '../fields/access.ts'
import { writeColumns } from '../fields/table.ts'
import { Conflict, NotFound } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'
import { insertOf, readRecord } from './records.ts'
import { isUniqueViolation } from './sql-errors.ts'

const FROM = 'FROM device_subscriptions s'

const list = tableList(SUBSCRIPTION_TABLE, {
  from: FROM,
  where: 's.tenant_id = ? AND s.device_int_id = ?',
  timeField: 's.create_at',
  idField: 's.id',
})

const COLUMNS = writeColumns(SUBSCRIPTION_TABLE)

/** Proxy subscriptions of devices: stored here, applied by the broker when the device connects. */
export class SubscriptionsRepo implements SubscriptionRepository {
  constructor(private readonly db: Db) {}

  /** A page of the subscriptions of the tenant's device `deviceIntID`; NotFound when the device is not the tenant's. */
  async list(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page<SubscriptionRecord>> {
    await this.device(tenant, deviceIntID)
    return listPage(this.db, list, [tenant, deviceIntID], q)
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
    try {
      const insert = insertOf('device_subscriptions', COLUMNS, s, {
        tenant_id: tenant,
        device_int_id: deviceIntID,
        create_at: Date.now(),
      })
      const r = await this.db.run(insert.sql, insert.args)
      const row = await readRecord(this.db, SUBSCRIPTION_TABLE, `${FROM} WHERE s.id = ?`, [
        r.lastId,
      ])
      if (!row) throw new NotFound()
      return row
    } catch (e) {
      if (isUniqueViolation(e))
        throw new Conflict('topic', 'the device already subscribes to this topic')
      throw e
    }
  }

  /** Deletes subscriptions of the device, all or none: an id that is not one of them is NotFound `ids`. */
  async delete(tenant: string, deviceIntID: number, ids: number[]) {
    await this.device(tenant, deviceIntID)
    const rows = await this.db.all(
      `SELECT id FROM device_subscriptions WHERE tenant_id = ? AND device_int_id = ? AND id IN (${marks(ids.length)})`,
      [tenant, deviceIntID, ...ids],
    )
    const found = new Set(rows.map((r) => Number(r.id)))
    const absent = ids.filter((i) => !found.has(i))
    if (absent.length)
      throw new NotFound('ids', `no subscription ${absent.join(', ')} of this device`)
    await this.db.run(
      `DELETE FROM device_subscriptions WHERE tenant_id = ? AND device_int_id = ? AND id IN (${marks(ids.length)})`,
      [tenant, deviceIntID, ...ids],
    )
  }

  /** NotFound unless `id` is a device or gateway of the tenant. */
  private async device(tenant: string, id: number) {
    if (!(await this.db.one('SELECT id FROM devices WHERE tenant_id = ? AND id = ?', [tenant, id])))
      throw new NotFound()
  }
}
