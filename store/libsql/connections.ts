import type { InStatement } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  ConnectionRepository,
  ConnectionState,
  ConnectLogFold,
  ConnectLogInput,
  OutboxInput,
} from '../types.ts'
import { connectLogInserts } from './logs-sql.ts'
import { deliveriesOfLast, outboxInserts } from './webhooks.ts'

/** One device's state → its UPDATE of the devices table. */
function stateUpdate(s: ConnectionState): InStatement {
  return s.online
    ? {
        sql: `UPDATE devices SET device_status = 1, client_ip = ?, connected_at = ?, keep_alive = ?,
                last_seen_at = max(coalesce(last_seen_at, 0), ?) WHERE id = ?`,
        args: [s.ip, s.connectedAt, s.keepAlive, s.connectedAt, s.deviceIntID],
      }
    : { sql: 'UPDATE devices SET device_status = 0 WHERE id = ?', args: [s.deviceIntID] }
}

/** Refusals counted into the refused row of that client id, address and time (after the inserts of its batch). */
const foldUpdate = (f: ConnectLogFold): InStatement => ({
  sql: `UPDATE connect_logs SET attempts = attempts + ?, update_at = ?
        WHERE device_id = ? AND msg_time = ? AND connect_status = 2 AND ip IS ?`,
  args: [f.add, f.at, f.deviceID, f.msgTime, f.IP],
})

/** Devices per lastSeenAt statement (two arguments each). */
const SEEN_ROWS = 400

/** Connection state of devices (columns of the devices table) and the connection logs, in libSQL. */
export class ConnectionsRepo implements ConnectionRepository {
  constructor(private readonly db: Db) {}

  async record(batch: {
    states: readonly ConnectionState[]
    logs: readonly ConnectLogInput[]
    folds?: readonly ConnectLogFold[]
    outbox?: readonly OutboxInput[]
  }): Promise<void> {
    const now = Date.now()
    const statements = [
      ...batch.states.map(stateUpdate),
      ...(batch.logs.length ? connectLogInserts(batch.logs, now) : []),
      ...(batch.folds ?? []).map(foldUpdate),
      ...outboxInserts(batch.outbox ?? [], now),
    ]
    if (statements.length) await this.db.batch(statements)
  }

  async markSeen(
    seen: ReadonlyArray<{ deviceIntID: number; at: number }>,
    olderThanMs: number,
  ): Promise<number[]> {
    const statements: InStatement[] = []
    for (let i = 0; i < seen.length; i += SEEN_ROWS) {
      const part = seen.slice(i, i + SEEN_ROWS)
      statements.push({
        sql: `UPDATE devices SET last_seen_at = v.column2
              FROM (VALUES ${part.map(() => '(?, ?)').join(', ')}) AS v
              WHERE devices.id = v.column1
                AND (devices.last_seen_at IS NULL OR devices.last_seen_at <= v.column2 - ?)
              RETURNING devices.id`,
        args: [...part.flatMap((s) => [s.deviceIntID, s.at]), olderThanMs],
      })
    }
    if (!statements.length) return []
    return (await this.db.batch(statements)).flatMap((r) => r.rows.map((row) => Number(row[0])))
  }

  async allOffline(): Promise<number> {
    const now = Date.now()
    // each device marked offline gets its device.offline event (the data outboxOf gives a DeviceRef)
    const results = await this.db.batch([
      {
        sql: `INSERT INTO outbox_events (tenant_id, type, time, device_id, data)
          SELECT tenant_id, 'device.offline', ?, device_id,
            json_object('deviceIntID', id, 'deviceID', device_id, 'kind', kind)
          FROM devices WHERE device_status <> 0 ORDER BY id`,
        args: [now],
      },
      deliveriesOfLast(now),
      { sql: 'UPDATE devices SET device_status = 0 WHERE device_status <> 0', args: [] },
    ])
    return results[2]!.rowsAffected
  }
}
