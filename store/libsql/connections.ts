import type { InStatement } from '@libsql/client'
import type { Db } from './db.ts'
import type { ConnectionRepository, ConnectionState, ConnectLogInput } from '../types.ts'
import { connectLogInserts } from './logs-sql.ts'

/** One device's state → its UPDATE of the devices table. */
function stateUpdate(s: ConnectionState): InStatement {
  return s.online
    ? {
        sql: 'UPDATE devices SET device_status = 1, client_ip = ?, connected_at = ?, keep_alive = ? WHERE id = ?',
        args: [s.ip, s.connectedAt, s.keepAlive, s.deviceIntID],
      }
    : { sql: 'UPDATE devices SET device_status = 0 WHERE id = ?', args: [s.deviceIntID] }
}

/** Connection state of devices (columns of the devices table) and the connection logs, in libSQL. */
export class ConnectionsRepo implements ConnectionRepository {
  constructor(private readonly db: Db) {}

  async record(batch: {
    states: readonly ConnectionState[]
    logs: readonly ConnectLogInput[]
  }): Promise<void> {
    const statements = [
      ...batch.states.map(stateUpdate),
      ...(batch.logs.length ? connectLogInserts(batch.logs, Date.now()) : []),
    ]
    if (statements.length) await this.db.batch(statements)
  }

  async allOffline(): Promise<number> {
    return (await this.db.run('UPDATE devices SET device_status = 0 WHERE device_status <> 0'))
      .changes
  }
}
