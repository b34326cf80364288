/**
 * A young-generation collection asked of V8, for a stream that moves many large Buffers through quickly (an upload):
 * each chunk a socket read is a Buffer whose bytes live outside V8's heap, and V8 collects them only once they grew by
 * 64 MiB (its fixed external-memory limit), so a 200 MiB upload would raise the peak RSS by that much. Asked every
 * 8 MiB, the dead chunks go at once: the peak grows by ~10 MiB. It needs node's `--expose-gc` (`npm start` and the
 * tests' child services pass it); without it this does nothing. The collection runs as its own task, not here.
 */
export function collectYoungGeneration(): void {
  const gc = (globalThis as { gc?: (options: object) => unknown }).gc
  gc?.({ type: 'minor', execution: 'async' })
}

/** Bytes of a stream between two collections of collectYoungGeneration. */
export const COLLECT_EVERY_BYTES = 8 << 20
