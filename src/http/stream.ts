import { fallbackLogger } from '../kernel/log.ts'

/** A byte stream of the texts `parts` yields, pulled as the client reads (backpressure), cancelled with it. */
export function textStream(parts: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const it = parts[Symbol.asyncIterator]()
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
