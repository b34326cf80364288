/**
 * The metadata database a store test runs on: LocalDb (in-thread), or PortDb (store/libsql/worker/) when the
 * file is run again through a `*-port.test.ts` twin that sets TEST_DB=port before importing it.
 */
import { openDb, type Db } from '../../store/libsql/db.ts'
import { PortDb } from '../../store/libsql/worker/port-db.ts'

export const overWorkers = () => process.env.TEST_DB === 'port'

export function openTestDb(url: string): Promise<Db> {
  return overWorkers() ? PortDb.open({ url }) : openDb({ url })
}
