/**
 * Live event stream clients of the tests: `openStream` reads and parses continuously (fetch); `stalledStream` is a
 * raw HTTP request whose response is not read until `resume()` (a client that stops reading).
 */
import { request } from 'node:http'
import type { Client } from '../../_support/service.ts'

export interface Message {
  id?: string
  event?: string
  data?: any
  comment?: string
}

export interface Stream {
  status: number
  messages: Message[]
  /** The server ended the stream. */
  ended: boolean
  close(): void
}

/** Parses the complete SSE blocks at the start of `buf` into `out`; answers the unparsed rest. */
function parse(buf: string, out: Message[]): string {
  let at: number
  while ((at = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, at)
    buf = buf.slice(at + 2)
    const m: Message = {}
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) m.comment = line.slice(1).trim()
      else if (line.startsWith('id: ')) m.id = line.slice(4)
      else if (line.startsWith('event: ')) m.event = line.slice(7)
      else if (line.startsWith('data: ')) m.data = JSON.parse(line.slice(6))
    }
    out.push(m)
  }
  return buf
}

/** Opens the stream and parses what arrives into `messages` until closed. */
export async function openStream(
  c: Client,
  query = '',
  headers: Record<string, string> = {},
): Promise<Stream> {
  const abort = new AbortController()
  const res = await fetch(`${c.url}/api/v1/events/stream${query}`, {
    headers: { authorization: c.authorization!, ...headers },
    signal: abort.signal,
  })
  const messages: Message[] = []
  const stream: Stream = { status: res.status, messages, ended: false, close: () => abort.abort() }
  if (res.status === 200) {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buf = ''
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) {
            stream.ended = true
            return
          }
          buf = parse(buf + value, messages)
        }
      } catch {
        // aborted
      }
    })()
  }
  return stream
}

/** A stream whose answer is not read (the socket's buffers fill up) until `resume()`. */
export function stalledStream(
  c: Client,
  query = '',
): Promise<Stream & { resume(): void; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${c.url}/api/v1/events/stream${query}`, {
      headers: { authorization: c.authorization! },
    })
    req.on('error', reject)
    req.on('response', (res) => {
      res.pause()
      const messages: Message[] = []
      let buf = ''
      let ended!: () => void
      const closed = new Promise<void>((r) => (ended = r))
      const s = {
        status: res.statusCode!,
        messages,
        ended: false,
        closed,
        close: () => req.destroy(),
        resume: () => res.resume(),
      }
      res.setEncoding('utf8')
      res.on('data', (d: string) => (buf = parse(buf + d, messages)))
      const end = () => {
        s.ended = true
        ended()
      }
      res.on('end', end)
      res.on('close', end)
      res.on('error', end)
      resolve(s)
    })
    req.end()
  })
}
