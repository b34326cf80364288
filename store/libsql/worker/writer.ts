/**
 * The store worker: the only write connection to the metadata database (it runs the migrations when it
 * opens). Everything that arrived is drained into one transaction (`BEGIN IMMEDIATE`) with a `SAVEPOINT` per
 * request: a request whose statement fails is rolled back to its savepoint and rejected alone, its neighbours
 * commit. A transaction takes at most MAX_STATEMENTS statements or MAX_MS of work, then commits and the drain
 * goes on. Each transaction's replies are posted right after its commit (not after the whole drain), so an answered
 * write is durable and visible to the readers, and waits for no later transaction.
 * A `read` request here is a statement that writes and answers rows (`INSERT … RETURNING` through `Db.one`), or,
 * marked `direct`, one that only reads (PortDb sends those here while no reader runs or while the store worker is
 * free): answered in order between two transactions, in a read transaction of its own, without the write lock.
 */
import { LibsqlBatchError, LibsqlError } from '@libsql/client/sqlite3'
import type { InStatement, ResultSet, Transaction } from '@libsql/client'
import {
  jsonInserts,
  keepPreparedStatements,
  type LocalDb,
  type Row,
  type WriteResult,
  type WriteRow,
} from '../db.ts'
import type { ReadRequest, Reply, Request, WriteRequest } from './protocol.ts'
import { answerRead, control, failed, serve } from './serve.ts'

keepPreparedStatements()

const MAX_STATEMENTS = 5000
const MAX_MS = 20

/** A driver result as plain data: rows with their values by position and by column name. */
function plain(rs: ResultSet): WriteResult {
  return {
    columns: rs.columns,
    rowsAffected: rs.rowsAffected,
    lastInsertRowid: rs.lastInsertRowid,
    rows: rs.rows.map((r) => {
      const row: WriteRow = {}
      for (let i = 0; i < r.length; i++) row[i] = r[i]
      for (const c of rs.columns) if (!(c in row)) row[c] = r[c]
      return row
    }),
  }
}

/** Rows by column name only, as `Db.read` answers them. */
const named = (rs: ResultSet): Row[] =>
  rs.rows.map((r) => {
    const row: Row = {}
    for (const c of rs.columns) if (!(c in row)) row[c] = r[c]
    return row
  })

/** A request LocalDb runs as one `execute` (its error is a LibsqlError), not a `batch`. */
const single = (r: ReadRequest | WriteRequest) => (r.t === 'read' ? r.stmts.length === 1 : r.run)

/** One statement; in a batch, its failure is a LibsqlBatchError naming it, as `client.batch` throws. */
async function execute(tx: Transaction, s: InStatement, index: number | undefined) {
  try {
    return await tx.execute(s)
  } catch (e) {
    if (index === undefined || !(e instanceof LibsqlError)) throw e
    const cause = e.cause instanceof Error ? e.cause : undefined
    throw new LibsqlBatchError(e.message, index, e.code, e.extendedCode, e.rawCode, cause)
  }
}

/** Runs the writes of `queue` from `start` in one transaction; answers them in `replies`; the next index. */
async function group(db: LocalDb, queue: Request[], start: number, replies: Reply[]) {
  let tx: Transaction
  try {
    tx = await (await db.client()).transaction('write')
  } catch (e) {
    // BEGIN IMMEDIATE failed (another process held the lock 5 s): the connection is replaced before the next one
    replies.push(failed(queue[start]!.id, db.failed(e)))
    return start + 1
  }
  const done: Reply[] = []
  const ids: number[] = []
  const t0 = performance.now()
  let statements = 0
  let i = start
  try {
    for (; i < queue.length; i++) {
      const r = queue[i]!
      if (r.t === 'ctl' || (r.t === 'read' && r.direct)) break
      if (i > start && (statements >= MAX_STATEMENTS || performance.now() - t0 > MAX_MS)) break
      ids.push(r.id)
      await tx.execute('SAVEPOINT r')
      try {
        const stmts = r.t === 'write' && r.json ? jsonInserts(r.json) : r.stmts
        statements += stmts.length
        const results: ResultSet[] = []
        for (const s of stmts)
          results.push(await execute(tx, s, single(r) ? undefined : results.length))
        await tx.execute('RELEASE r')
        const value =
          r.t === 'read'
            ? results.map(named)
            : r.run
              ? {
                  changes: results[0]!.rowsAffected,
                  lastId: Number(results[0]!.lastInsertRowid ?? 0),
                }
              : results.map(plain)
        done.push({ id: r.id, ok: true, value })
      } catch (e) {
        if (tx.closed) throw e // SQLite rolled the whole transaction back (I/O, full disk): all of it fails
        await tx.execute('ROLLBACK TO r')
        await tx.execute('RELEASE r')
        done.push(failed(r.id, e))
      }
    }
    await tx.commit()
    replies.push(...done)
  } catch (e) {
    try {
      tx.close()
    } catch {
      // the connection is unusable: the next BEGIN fails and says so
    }
    const err = db.failed(e)
    for (const id of ids) replies.push(failed(id, err))
    if (i < queue.length && ids.at(-1) === queue[i]!.id) i++
  }
  return i
}

await serve({ readOnly: false }, async (db, queue, post) => {
  for (let i = 0; i < queue.length;) {
    const r = queue[i]!
    const replies: Reply[] = []
    const transfer: ArrayBuffer[] = []
    if (r.t === 'read' && r.direct) {
      try {
        replies.push({ id: r.id, ok: true, value: await answerRead(db, r, transfer) })
      } catch (e) {
        replies.push(failed(r.id, e))
      }
      i++
    } else if (r.t !== 'ctl') i = await group(db, queue, i, replies)
    else {
      try {
        replies.push((await control(db, r)) ?? failed(r.id, new Error(`store worker: no ${r.t}`)))
      } catch (e) {
        replies.push(failed(r.id, e))
      }
      i++
    }
    post(replies, transfer) // each transaction's answers as soon as it committed
  }
})
