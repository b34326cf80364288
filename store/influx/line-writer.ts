import type { InfluxDB, WriteApi } from '@influxdata/influxdb-client'
import { deferred } from '../../src/kernel/deferred.ts'
import { Unavailable } from '../errors.ts'
import { toStoreError } from './errors.ts'
import { PRECISION, WRITE_OPTIONS } from './options.ts'

/** The lines of the write() calls of one event-loop turn, sent through one WriteApi and settled together. */
interface Generation {
  api: WriteApi
  queued: number
  settled: number
  sealed: boolean
  error?: unknown
  done: Promise<void>
  resolve(): void
  reject(err: unknown): void
}

/**
 * Batches line protocol through the client's WriteApi and tells each caller when InfluxDB accepted its lines.
 * Calls made in the same event-loop turn share one generation (one WriteApi, flushed once): each resolves when
 * every line of its generation was answered 204, or rejects with the first failure (never silently dropped).
 * The WriteApi may send a full batch while lines are still being added; its writeSuccess/writeFailed hooks
 * count answered lines, so batches it sends on its own are awaited too.
 */
export class InfluxLineWriter {
  #current: Generation | undefined
  readonly #open = new Set<Generation>()
  #closed = false

  constructor(
    private readonly client: InfluxDB,
    private readonly org: string,
    private readonly bucket: string,
  ) {}

  /** Queues the lines; resolves when InfluxDB accepted them (and the rest of their generation). */
  write(lines: readonly string[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Unavailable('telemetry store is closed'))
    if (lines.length === 0) return Promise.resolve()
    const gen = this.#current ?? this.#start()
    gen.queued += lines.length
    gen.api.writeRecords(lines as string[])
    return gen.done
  }

  /** Sends what is queued and waits until every generation in flight is settled. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#current) this.#seal(this.#current)
    await Promise.allSettled([...this.#open].map((g) => g.done))
  }

  #start(): Generation {
    const { promise: done, resolve, reject } = deferred()
    done.catch(() => {}) // callers get the rejection; this only keeps an unawaited one from crashing
    const gen: Generation = {
      queued: 0,
      settled: 0,
      sealed: false,
      done,
      resolve,
      reject,
    } as Generation
    gen.api = this.client.getWriteApi(this.org, this.bucket, PRECISION, {
      ...WRITE_OPTIONS,
      writeSuccess: (lines) => this.#answered(gen, lines.length),
      writeFailed: (error, lines) => {
        gen.error ??= error
        this.#answered(gen, lines.length)
        return Promise.reject(error) // settles the batch here: no client retry, no client log line
      },
    })
    this.#current = gen
    this.#open.add(gen)
    setImmediate(() => this.#seal(gen))
    return gen
  }

  #seal(gen: Generation): void {
    if (gen.sealed) return
    gen.sealed = true
    if (this.#current === gen) this.#current = undefined
    gen.api.flush().catch(() => {}) // the outcome arrives through writeSuccess/writeFailed
    this.#check(gen)
  }

  #answered(gen: Generation, lines: number): void {
    gen.settled += lines
    this.#check(gen)
  }

  #check(gen: Generation): void {
    if (!gen.sealed || gen.settled < gen.queued || !this.#open.delete(gen)) return
    gen.api.dispose()
    if (gen.error === undefined) gen.resolve()
    else gen.reject(toStoreError(gen.error, 'write'))
  }
}
