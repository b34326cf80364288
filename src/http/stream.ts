import { fallbackLogger } from '../kernel/log.ts'

/** A byte stream of the texts `parts` yields, pulled as the client reads (backpressure), cancelled with it. */
export function textStream(parts: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const it: AsyncIterator<string, unknown> = parts[Symbol.asyncIterator]()
  const enc = new TextEncoder()
  return new ReadableStream({
    async pull(ctrl) {
      try {
        const { value, done } = await it.next()
        if (done) ctrl.close()
        else ctrl.enqueue(enc.encode(value))
      } catch (e) {
        fallbackLogger().child({ component: 'http' }).error({ err: e }, 'response stream failed')
        ctrl.error(e)
      }
    },
    async cancel() {
      await it.return?.()
    },
  })
}

/**
 * A byte stream pulled as the client's socket takes it (the server writes the next chunk once the previous one
 * was accepted or drained): `next()` answers the next chunk, null at the end; `cancel()` when the client left.
 */
export function pullStream(source: {
  next(): Promise<Uint8Array | null>
  cancel(): void
}): ReadableStream<Uint8Array> {
  return new ReadableStream(
    {
      async pull(ctrl) {
        const chunk = await source.next()
        try {
          if (chunk) ctrl.enqueue(chunk)
          else ctrl.close()
        } catch {
          // cancelled meanwhile (the client left)
        }
      },
      cancel() {
        source.cancel()
      },
    },
    { highWaterMark: 0 },
  )
}
