import { Worker } from 'node:worker_threads'

/**
 * How a worker thread starts depends on what this module was loaded as. From the sources (a .ts file under tsx:
 * the tests, `npm run dev`) a thread starts through boot.mjs, which registers tsx in it, then imports the entry's .ts
 * file (WORKER_ENTRIES). Compiled (`npm run build`: this module is then part of a bundle in dist/server/, main.js or
 * a CLI's) a thread starts straight from its entry's own bundle beside that one (dist/server/writer.js, ...).
 */
const COMPILED = import.meta.url.endsWith('.js')
const BOOT = new URL('./boot.mjs', import.meta.url)

/**
 * Every module a worker thread runs, by name, with its source (a path from the repository's root). `npm run build`
 * bundles each as dist/server/<name>.js.
 */
export const WORKER_ENTRIES = {
  writer: 'store/libsql/worker/writer.ts',
  reader: 'store/libsql/worker/reader.ts',
  'telemetry-worker': 'store/tsdb/worker/thread.ts',
  checkpointer: 'store/libsql/worker/checkpointer.ts',
  'backup-worker': 'store/libsql/worker/backup-worker.ts',
} as const
export type WorkerEntry = keyof typeof WORKER_ENTRIES

/** The repository's root, seen from this file's source (store/libsql/worker/). */
const ROOT = new URL('../../../', import.meta.url)

/** The URL of a worker entry's module: its source, or its bundle when this runs compiled. */
export const workerEntry = (name: WorkerEntry): string =>
  (COMPILED ? new URL(`./${name}.js`, import.meta.url) : new URL(WORKER_ENTRIES[name], ROOT)).href

/**
 * Starts a thread on `workerData.entry` (see workerEntry) and waits for its first message; rejects when the thread
 * fails or exits before sending one. The listeners of the wait are removed again.
 */
export async function bootWorker<M>(
  name: string,
  workerData: { entry: string },
): Promise<{ worker: Worker; first: M }> {
  const worker = new Worker(COMPILED ? new URL(workerData.entry) : BOOT, { workerData, name })
  let onError: (e: Error) => void = () => {}
  let onExit: (code: number) => void = () => {}
  const first = await new Promise<M>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', (onError = reject))
    worker.once('exit', (onExit = (code) => reject(new Error(`${name} worker exited (${code})`))))
  }).finally(() => {
    worker.off('error', onError)
    worker.off('exit', onExit)
  })
  return { worker, first }
}
