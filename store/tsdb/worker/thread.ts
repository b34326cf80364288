/**
 * The telemetry worker: owns the embedded telemetry store (telemetry.ts: its file, memtable, flusher and
 * compaction) on its own thread, so the store's SQLite work, chunk encoding and decoding never run on the thread
 * of the broker and the API. Requests run as they arrive (the store orders its mutations itself); their replies
 * are posted together once per turn. Errors of the background flusher are sent as notices.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { SeriesSlice } from '../../telemetry.ts'
import { keepPreparedStatements } from '../../libsql/db.ts'
import { LibsqlTelemetryStore } from '../store.ts'
import { encodeError } from '../../libsql/worker/errors.ts'
import { collectAtRest } from '../../../src/kernel/memory.ts'
import type { Hello, Notice, Reply } from '../../libsql/worker/protocol.ts'
import type { TelemetryRequest, TelemetryWorkerData } from './protocol.ts'

/** Streams a caller opened and has not finished: more are refused (an export that never reads on holds one). */
const MAX_STREAMS = 256
/** A `next` answers slices until it holds this many values (at least one slice). */
const NEXT_VALUES = 100_000

keepPreparedStatements()
const port = parentPort!
const data = workerData as TelemetryWorkerData
const store = await LibsqlTelemetryStore.open({
  ...data.options,
  onError: (e) => port.postMessage({ notice: 'error', err: encodeError(e) } satisfies Notice),
}).catch((e: unknown) => {
  // the owner terminates the thread on this answer
  port.postMessage({ ready: false, err: encodeError(e) } satisfies Hello)
  return undefined
})
if (store) {
  serve(store)
  collectAtRest()
}

let replies: Reply[] = []
const post = () => {
  const out = replies
  replies = []
  port.postMessage(out)
}
const answer = (r: Reply) => {
  if (replies.push(r) === 1) setImmediate(post)
}

const streams = new Map<number, AsyncIterator<SeriesSlice>>()
let nextStream = 1

async function next(id: number) {
  const it = streams.get(id)
  if (!it) throw new Error(`no telemetry stream ${id}`)
  const slices: SeriesSlice[] = []
  let values = 0
  while (values < NEXT_VALUES) {
    const r = await it.next()
    if (r.done) {
      streams.delete(id)
      return { slices, done: true }
    }
    slices.push(r.value)
    values += r.value.time.length
  }
  return { slices, done: false }
}

async function handle(store: LibsqlTelemetryStore, r: TelemetryRequest): Promise<unknown> {
  switch (r.t) {
    case 'write':
      return store.writeColumns(r.columns)
    case 'call':
      return (store[r.method] as (...a: unknown[]) => Promise<unknown>).apply(store, r.args)
    case 'stream':
      if (r.op === 'open') {
        if (streams.size >= MAX_STREAMS) throw new Error('too many open telemetry streams')
        const id = nextStream++
        streams.set(id, store.stream(r.range)[Symbol.asyncIterator]())
        return id
      }
      if (r.op === 'next') return next(r.stream)
      await streams.get(r.stream)?.return?.()
      streams.delete(r.stream)
      return null
    case 'close':
      for (const it of streams.values()) await it.return?.()
      streams.clear()
      return store.close()
  }
}

function serve(store: LibsqlTelemetryStore) {
  port.on('message', (requests: Array<TelemetryRequest & { id: number }>) => {
    for (const r of requests)
      handle(store, r).then(
        (value) => answer({ id: r.id, ok: true, value: value ?? null }),
        (e: unknown) => answer({ id: r.id, ok: false, err: encodeError(e) }),
      )
  })
  port.postMessage({ ready: true } satisfies Hello)
}
