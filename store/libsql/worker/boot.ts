import { Worker } from 'node:worker_threads'

/**
 * How a worker thread starts depends on what this module was loaded as. From the sources (a .ts file under tsx:
 * the tests, `npm run dev`) a thread starts through boot.mjs, which registers tsx in it, then imports the entry .ts
 * file beside this one. Compiled (`npm run build`: this module is then part of a bundle in dist/server/, main.js or
 * a CLI's) a thread starts straight from its entry's own bundle beside that one (dist/server/writer.js, ...).
 */
const COMPILED = import.meta.url.endsWith('.js')
const BOOT = new URL('./boot.mjs', import.meta.url)

/** Every module a worker thread runs (store/libsql/worker/<name>.ts); `npm run build` bundles each. */
export const WORKER_ENTRIES = [
  'writer',
  'reader',
  'telemetry-worker',
  'checkpointer',
  'backup-worker',
] as const
export type WorkerEntry = (typeof WORKER_ENTRIES)[number]

/** The URL of a worker entry's module: its source, or its bundle when this runs compiled. */
export const workerEntry = (name: WorkerEntry): string =>
  new URL(`./${name}.${COMPILED ? 'js' : 'ts'}`, import.meta.url).href

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
