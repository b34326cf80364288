/**
 * The console's one event stream: GET /api/v1/events/stream read with fetch() (EventSource cannot send the bearer
 * token), parsed as Server-Sent Events and handed to the views that listen. It reconnects after a drop, resuming
 * after the last event id, and ends with the session.
 */
import { effect } from '@preact/signals'
import { authorization, session } from './api.ts'

/** One event of the stream: its type and its parsed `data:`. */
export interface LiveEvent {
  type: string
  data: unknown
}

/** `telemetry`: the values one device sent at one time. */
export interface Telemetry {
  deviceID: string
  time: number
  values: Record<string, number | string | boolean | null>
}

type Listener = (e: LiveEvent) => void
const listeners = new Set<Listener>()

/** Calls `fn` for every event until the returned function is called. */
export function onLive(fn: Listener): () => void {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

/** The deviceID an event is about (`data.data.deviceID` of outbox events, `data.deviceID` of telemetry). */
export function deviceOf(e: LiveEvent): string | undefined {
  const d = e.data as { deviceID?: string; data?: { deviceID?: string } } | null
  return d?.deviceID ?? d?.data?.deviceID
}

/** Splits a text stream into SSE events; `flush` answers the complete ones, keeping a partial tail. */
export function sseParser() {
  let buf = ''
  return (chunk: string) => {
    buf += chunk.replace(/\r\n?/g, '\n')
    const out: Array<{ id?: string; event: string; data: string }> = []
    let end: number
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end)
      buf = buf.slice(end + 2)
      let event = 'message'
      let id: string | undefined
      const data: string[] = []
      for (const line of block.split('\n')) {
        if (!line || line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = value
        else if (field === 'data') data.push(value)
        else if (field === 'id') id = value
      }
      if (data.length) out.push({ id, event, data: data.join('\n') })
    }
    return out
  }
}

let controller: AbortController | undefined
let lastEventId: string | undefined

async function run(signal: AbortSignal) {
  let delay = 1000
  while (!signal.aborted) {
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', ...authorization() }
      if (lastEventId) headers['last-event-id'] = lastEventId
      const res = await fetch('/api/v1/events/stream', { headers, signal })
      if (res.status === 401 || res.status === 403) return
      if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`)
      delay = 1000
      const parse = sseParser()
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        for (const ev of parse(value)) {
          if (ev.id) lastEventId = ev.id
          let data: unknown
          try {
            data = JSON.parse(ev.data)
          } catch {
            continue
          }
          for (const fn of listeners) fn({ type: ev.event, data })
        }
      }
    } catch {
      if (signal.aborted) return
    }
    await new Promise((r) => setTimeout(r, delay))
    delay = Math.min(delay * 2, 15000)
  }
}

/** Opens the stream while a session exists, closes it when it ends. */
export function startLive() {
  effect(() => {
    const signedIn = session.value !== null
    controller?.abort()
    controller = undefined
    if (!signedIn) {
      lastEventId = undefined
      return
    }
    controller = new AbortController()
    void run(controller.signal)
  })
}
