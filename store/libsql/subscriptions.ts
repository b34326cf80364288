import type { Db } from './db.ts'
import type { ListArgs, Page, Row, SubscriptionRepository } from '../types.ts'
import { Conflict, NotFound } from '../errors.ts'
import { listPage, marks, type ListSpec } from './list.ts'
import { isUniqueViolation } from './sql-errors.ts'

const COLUMNS = `SELECT s.id AS id, s.topic AS topic, s.qos AS qos, s.create_at AS createAt, s.update_at AS updateAt`

const list: ListSpec = {
  columns: COLUMNS,
  from: 'FROM device_subscriptions s',
  where: 's.tenant_id = ? AND s.device_int_id = ?',
  fields: { topic: 's.topic', qos: 's.qos', updateAt: 's.update_at' },
  timeField: 's.create_at',
  idField: 's.id',
}

/** Proxy subscriptions of devices: stored here, applied by the broker when the device connects. */
export class SubscriptionsRepo implements SubscriptionRepository {
  constructor(private readonly db: Db) {}

  /** A page of the subscriptions of the tenant's device `deviceIntID`; NotFound when the device is not the tenant's. */
  async list(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page> {
    await this.device(tenant, deviceIntID)
    return listPage(this.db, list, [tenant, deviceIntID], q)
  }

  /** Every subscription of a device (for the broker), oldest first. */
  async ofDevice(deviceIntID: number): Promise<Array<{ topic: string; qos: number }>> {
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
    s: { topic: string; qos: number },
  ): Promise<Row> {
    await this.device(tenant, deviceIntID)
    try {
      const r = await this.db.run(
        'INSERT INTO device_subscriptions (tenant_id, device_int_id, topic, qos, create_at) VALUES (?, ?, ?, ?, ?)',
        [tenant, deviceIntID, s.topic, s.qos, Date.now()],
      )
      const row = await this.db.one(`${COLUMNS} FROM device_subscriptions s WHERE s.id = ?`, [
        r.lastId,
      ])
      return row as Row
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
