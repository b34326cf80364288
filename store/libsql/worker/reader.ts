/**
 * The reader worker: a read-only connection (`PRAGMA query_only = ON`: a stray write fails instead of
 * contending with the store worker) answering `Db.read` requests, each in its own read transaction, in order.
 * Its connection keeps its prepared statements (keepPreparedStatements).
 */
import { keepPreparedStatements } from '../db.ts'
import type { Reply } from './protocol.ts'
import { answerRead, control, failed, serve } from './serve.ts'

keepPreparedStatements()

/** Answers of a drain are posted at least this often (a queue of 100 reads must not wait for the last one). */
const POST_MS = 1

await serve({ readOnly: true }, async (db, queue, post) => {
  let replies: Reply[] = []
  let transfer: ArrayBuffer[] = []
  let since = performance.now()
  for (const r of queue) {
    try {
      if (r.t === 'read')
        replies.push({ id: r.id, ok: true, value: await answerRead(db, r, transfer) })
      else replies.push((await control(db, r)) ?? failed(r.id, new Error(`reader: no ${r.t}`)))
    } catch (e) {
      replies.push(failed(r.id, e))
    }
    if (performance.now() - since >= POST_MS) {
      post(replies, transfer)
      replies = []
      transfer = []
      since = performance.now()
    }
  }
  post(replies, transfer)
})
