/**
 * Live event stream clients of the tests: `openStream` reads and parses continuously (fetch); `stalledStream` is a
 * raw HTTP request whose response is not read until `resume()` (a client that stops reading).
 */
import { request } from 'node:http'
import type { Client } from '../../_support/service.ts'

/** An outbox event as an event frame carries it (src/services/webhook-delivery.ts `eventBody`). */
export interface OutboxData {
  id: number
  type: string
  time: number
  tenantID: string
  /** The event's own fields (taskID, commandStatus, deviceID, ...). */
  data: Record<string, unknown>
}

/** A `telemetry` frame: one device's values at one time. */
export interface TelemetryData {
  deviceID: string
  time: number
  values: Record<string, unknown>
}

/** The `overflow` frame a client that fell behind gets last: how many frames it missed, the last id it got. */
export interface OverflowData {
  missed: number
  lastEventID?: number | string
}

/** One SSE block; `D`: the data the test expects of the stream's events (a comment alone has none). */
export interface Message<D = unknown> {
  id?: string
  event?: string
  data?: D
  comment?: string
}

/** A block with an event, and so with its data; one member per kind of data `D` names, so a test can narrow. */
export type EventMessage<D> = D extends unknown ? Message<D> & { event: string; data: D } : never

/** The event blocks of a stream, without the comments (pings). */
export const events = <D>(s: Stream<D>) => s.messages.filter((m): m is EventMessage<D> => !!m.event)

/** Whether an event block of a stream of several kinds is a `telemetry` frame. */
export const isTelemetry = (
  e: EventMessage<OutboxData | TelemetryData | OverflowData>,
): e is EventMessage<TelemetryData> => e.event === 'telemetry'

/** Picks the blocks of one outbox event type out of a stream of several kinds. */
export const ofType =
  (type: string) =>
  (e: EventMessage<OutboxData | TelemetryData | OverflowData>): e is EventMessage<OutboxData> =>
    e.event === type

export interface Stream<D = unknown> {
  status: number
  messages: Array<Message<D>>
  /** The server ended the stream. */
  ended: boolean
  close(): void
}

/** Parses the complete SSE blocks at the start of `buf` into `out`; answers the unparsed rest. */
function parse<D>(buf: string, out: Array<Message<D>>): string {
  let at: number
  while ((at = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, at)
    buf = buf.slice(at + 2)
    const m: Message<D> = {}
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) m.comment = line.slice(1).trim()
      else if (line.startsWith('id: ')) m.id = line.slice(4)
      else if (line.startsWith('event: ')) m.event = line.slice(7)
      else if (line.startsWith('data: ')) m.data = JSON.parse(line.slice(6)) as D
    }
    out.push(m)
  }
  return buf
}

/** Opens the stream and parses what arrives into `messages` until closed. */
export async function openStream<D = unknown>(
  c: Client,
  query = '',
  headers: Record<string, string> = {},
): Promise<Stream<D>> {
  const abort = new AbortController()
  const res = await fetch(`${c.url}/api/v1/events/stream${query}`, {
    headers: { authorization: c.authorization!, ...headers },
    signal: abort.signal,
  })
  const messages: Array<Message<D>> = []
  const stream: Stream<D> = {
    status: res.status,
    messages,
    ended: false,
    close: () => abort.abort(),
  }
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
export function stalledStream<D = unknown>(
  c: Client,
  query = '',
): Promise<Stream<D> & { resume(): void; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${c.url}/api/v1/events/stream${query}`, {
      headers: { authorization: c.authorization! },
    })
    req.on('error', reject)
    req.on('response', (res) => {
      res.pause()
      const messages: Array<Message<D>> = []
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
