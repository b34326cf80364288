/**
 * The console's one event stream per browser: GET /api/v1/events/stream read with fetch() (EventSource cannot send
 * the bearer token), parsed as Server-Sent Events and handed to the views that listen. A browser opens at most 6
 * HTTP/1.1 connections to a host, so the tabs share one stream: the tab holding the Web Lock `devicecloud-stream`
 * (the leader) reads it and re-broadcasts every event on the BroadcastChannel of the same name; the other tabs
 * listen there and wait for the lock. When the leader closes, the lock passes to another tab, which resumes after
 * the last event id the leader broadcast. Signing out in one tab signs every tab out and ends the stream. Where
 * Web Locks or BroadcastChannel are missing (an http:// origin other than localhost has no Web Locks), each tab
 * reads its own stream. The leader reconnects after a drop, resuming after the last event id.
 */
import { effect } from '@preact/signals'
import { authorization, forgetSession, session } from './api/client.ts'

const NAME = 'devicecloud-stream'

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

/**
 * Calls `fn` shortly after a value of one of `deviceIDs` arrives, at most once every `everyMs`: for what a value
 * changes without an event of its own (an open alert counted again, with the values that fired it).
 */
export function afterTelemetry(
  deviceIDs: ReadonlySet<string>,
  fn: () => void,
  delayMs = 500,
  everyMs = 2000,
): () => void {
  let last = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const off = onLive((e) => {
    if (timer || e.type !== 'telemetry' || !deviceIDs.has(deviceOf(e) ?? '')) return
    timer = setTimeout(
      () => {
        timer = undefined
        last = Date.now()
        fn()
      },
      Math.max(delayMs, last + everyMs - Date.now()),
    )
  })
  return () => {
    off()
    clearTimeout(timer)
  }
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

/** What the tabs tell each other on the channel. */
type Message = { kind: 'event'; id?: string; type: string; data: unknown } | { kind: 'sign-out' }

let controller: AbortController | undefined
let lastEventId: string | undefined
let channel: BroadcastChannel | undefined
/** Whether the tabs share one stream (Web Locks and BroadcastChannel both exist). */
let sharing = false

function deliver(e: LiveEvent) {
  for (const fn of listeners) fn(e)
}

async function run(signal: AbortSignal) {
  let delay = 1000
  while (!signal.aborted) {
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', ...authorization() }
      if (lastEventId) headers['last-event-id'] = lastEventId
      const res = await fetch('/api/v1/events/stream', { headers, signal })
      if (res.status === 401 || res.status === 403) {
        // the token is no longer valid: the session ends (in every tab), as any refused API call ends it
        if (res.status === 401 && !signal.aborted) forgetSession()
        return
      }
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
          if (sharing)
            channel?.postMessage({
              kind: 'event',
              id: ev.id,
              type: ev.event,
              data,
            } satisfies Message)
          deliver({ type: ev.event, data })
        }
      }
    } catch {
      if (signal.aborted) return
    }
    await new Promise((r) => setTimeout(r, delay))
    delay = Math.min(delay * 2, 15000)
  }
}

/** Reads the stream once this tab holds the lock (at once without Web Locks), until `signal` aborts. */
function lead(signal: AbortSignal) {
  if (!sharing) return void run(signal)
  navigator.locks
    .request(NAME, { signal }, () => run(signal))
    .catch(() => {
      // aborted while waiting for the lock: signed out
    })
}

/** Set while a sign-out told by another tab is applied here, so that it is not told back. */
let fromOtherTab = false

/** Opens the stream (or follows the leader's) while a session exists, closes it when it ends. */
export function startLive() {
  if (typeof BroadcastChannel !== 'undefined') {
    channel = new BroadcastChannel(NAME)
    // navigator.locks is undefined outside a secure context (https, or http on localhost)
    sharing = typeof navigator !== 'undefined' && navigator.locks !== undefined
    channel.onmessage = (m: MessageEvent<Message>) => {
      const msg = m.data
      if (msg.kind === 'sign-out') {
        fromOtherTab = true
        forgetSession()
        fromOtherTab = false
      } else if (msg.kind === 'event' && sharing && session.value) {
        if (msg.id) lastEventId = msg.id
        deliver({ type: msg.type, data: msg.data })
      }
    }
  }
  // a page being left (a reload, a navigation) closes its stream at once and frees the lock for another tab, so
  // that closed pages never hold connections; one coming back from the back/forward cache opens it again
  addEventListener('pagehide', () => {
    controller?.abort()
    controller = undefined
  })
  addEventListener('pageshow', (e) => {
    if (!e.persisted || controller || !session.value) return
    controller = new AbortController()
    lead(controller.signal)
  })
  let wasSignedIn = false
  effect(() => {
    const signedIn = session.value !== null
    controller?.abort()
    controller = undefined
    if (!signedIn) {
      lastEventId = undefined
      if (wasSignedIn && !fromOtherTab) channel?.postMessage({ kind: 'sign-out' } satisfies Message)
      wasSignedIn = false
      return
    }
    wasSignedIn = true
    controller = new AbortController()
    lead(controller.signal)
  })
}
