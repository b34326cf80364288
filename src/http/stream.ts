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
        console.error('[http] response stream failed:', (e as Error).message)
        ctrl.error(e)
      }
    },
    async cancel() {
      await it.return?.()
    },
  })
}
