/**
 * A promise with the functions that settle it, for a producer that settles it later on behalf of many waiters (the
 * ingest writer's flush group, the InfluxDB line writer's generation).
 */
export interface Deferred<T = void> {
  promise: Promise<T>
  resolve: (value: T) => void
  reject: (err: unknown) => void
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (err: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
