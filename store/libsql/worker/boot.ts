import { Worker } from 'node:worker_threads'

const BOOT = new URL('./boot.mjs', import.meta.url)

/**
 * Starts a thread through boot.mjs (`workerData.entry` names its module) and waits for its first message; rejects
 * when the thread fails or exits before sending one. The listeners of the wait are removed again.
 */
export async function bootWorker<M>(
  name: string,
  workerData: { entry: string },
): Promise<{ worker: Worker; first: M }> {
  const worker = new Worker(BOOT, { workerData, name })
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
