import { parentPort, workerData } from 'node:worker_threads'
import { openDb, type LocalDb } from '../db.ts'
import { crossing } from '../projected.ts'
import { encodeError } from './errors.ts'
import { collectAtRest } from '../../../src/kernel/memory.ts'
import type { Hello, ReadRequest, Reply, Request, WorkerData } from './protocol.ts'

/**
 * A worker's handling of what arrived: every request of the queue, each answered through `post` as soon as its
 * answer is final (after its commit in the store worker), several at a time: a request never waits for the answers
 * of the ones drained after it.
 */
export type Drain = (
  db: LocalDb,
  queue: Request[],
  post: (replies: Reply[], transfer?: readonly ArrayBuffer[]) => void,
) => Promise<void>

/**
 * Runs a database worker: opens its connection (`readOnly` for a reader; the store worker migrates), says
 * hello, then drains what arrived (all queued requests at once, one drain at a time), posting replies as the drain
 * settles them (see Drain), moving the buffers a drain lists with them (`transfer`). A `close` request closes the
 * connection; the owner then terminates the thread.
 */
export async function serve(opts: { readOnly: boolean }, drain: Drain): Promise<void> {
  const port = parentPort!
  const data = workerData as WorkerData
  let db: LocalDb
  try {
    db = await openDb({
      url: data.url,
      authToken: data.authToken,
      readOnly: opts.readOnly,
      autocheckpointPages: data.autocheckpointPages,
    })
  } catch (e) {
    port.postMessage({ ready: false, err: encodeError(e) } satisfies Hello)
    return
  }
  let queue: Request[] = []
  let running = false
  const run = async () => {
    running = true
    while (queue.length > 0) {
      const batch = queue
      queue = []
      await drain(db, batch, (replies, transfer) => {
        if (replies.length) port.postMessage(replies, transfer)
      })
    }
    running = false
  }
  port.on('message', (requests: Request[]) => {
    queue.push(...requests)
    if (!running) void run()
  })
  port.postMessage({ ready: true } satisfies Hello)
  collectAtRest()
}

/** The answer to a control request every worker knows (`close`, `ping`); undefined for others. */
export async function control(db: LocalDb, r: Request): Promise<Reply | undefined> {
  if (r.t !== 'ctl') return undefined
  if (r.op === 'ping') return { id: r.id, ok: true, value: 'pong' }
  if (r.op === 'checkpoint') {
    await db.checkpoint()
    return { id: r.id, ok: true, value: null }
  }
  if (r.op === 'reclaim') return { id: r.id, ok: true, value: await db.reclaim(r.pages ?? 0) }
  await db.close()
  return { id: r.id, ok: true, value: null }
}

/**
 * The answer to a read that only reads (a reader's every read, the store worker's `direct` ones), in a read
 * transaction of its own: rows as JSON text where the shape is learnt (PortDb parses them, see LocalDb.readTexts);
 * a projected read's bytes are listed in `transfer`.
 */
export async function answerRead(
  db: LocalDb,
  r: ReadRequest,
  transfer: ArrayBuffer[],
): Promise<unknown> {
  return r.project
    ? crossing(await db.readProjectedTexts(r.stmts, r.project), transfer)
    : db.readTexts(r.stmts)
}

/** A failed request's reply. */
export const failed = (id: number, e: unknown): Reply => ({ id, ok: false, err: encodeError(e) })
