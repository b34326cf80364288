/**
 * A closed-loop HTTP load generator on raw sockets, run as its own process so it does not share the server's event
 * loop: `connections` keep-alive sockets, each sending the next request when the last answer arrived, for `seconds`
 * after `warmup` seconds. Node's HTTP client, used before, cost 23 µs of CPU a bare route's request and 45 µs a
 * device list's (this one 13 and 18), and its own collector and scheduling showed in the latencies it measured (a
 * bare route's p99 at 100 connections was 3.4x its mean through it, 1.7-2.0x through this one). Here each path is
 * one pre-encoded `GET` written as it is, and an answer is parsed only for its status and `Content-Length` (its body
 * is counted, not read), so that a ceiling run measures the server and not the client. HTTP/1.1 by hand (RFC
 * 9112): an answer without `Content-Length` (chunked) stops the run with an error rather than being mis-framed;
 * after an answer with `Connection: close` the next request goes on a new connection; a request whose connection
 * fails before its answer, a refused connection and an answer other than 200 are counted as errors; so is a request
 * still unanswered 10 s after the window closed, and the run ends then.
 * Prints one JSON line: {requests, errors, rps, p50, p99, max, mean, cpu} (latencies in ms; cpu: this load generator's
 * CPU over the measured window, % of one core).
 * argv: <json options> (inline, or @file) = {url: string, paths: string[], connections, seconds, warmup, headers}
 */
import { connect, type Socket } from 'node:net'
import { argJson } from './runner.ts'

interface Options {
  url: string
  paths: string[]
  connections: number
  seconds: number
  warmup: number
  headers?: Record<string, string>
}

const opts = argJson<Options>(process.argv[2]!)
const base = new URL(opts.url)
const fields = Object.entries({ host: base.host, ...opts.headers })
for (const [k, v] of fields)
  if (/[\r\n]/.test(k + v)) throw new Error(`load: a header with a line break: ${k}`)
const head = fields.map(([k, v]) => `${k}: ${v}\r\n`).join('')
const requests = opts.paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\n${head}\r\n`, 'latin1'))
const HEAD_END = Buffer.from('\r\n\r\n')
/** An answer's head longer than this is not HTTP from the servers this loads. */
const MAX_HEAD = 64 * 1024

/** Latencies in ms of the measured window, in a typed array grown by doubling (no array of boxed numbers). */
let latencies = new Float64Array(1 << 16)
let recorded = 0
let errors = 0
let next = 0
const startAt = performance.now() + opts.warmup * 1000
const endAt = startAt + opts.seconds * 1000
let lastAt = startAt

function record(ms: number) {
  if (recorded === latencies.length) {
    const grown = new Float64Array(latencies.length * 2)
    grown.set(latencies)
    latencies = grown
  }
  latencies[recorded++] = ms
}

/** One keep-alive connection sending a request whenever the last one was answered, until `endAt`. */
function client(done: () => void) {
  let socket: Socket
  let sentAt = 0
  let carry: Buffer | undefined
  /** Body bytes of the current answer still to come; -1 while its head is awaited. */
  let body = -1
  let status = 0
  let closing = false
  let busy = false

  const send = () => {
    const now = performance.now()
    if (now >= endAt) return done()
    sentAt = now
    busy = true
    socket.write(requests[next++ % requests.length]!)
  }
  const answered = () => {
    busy = false
    const now = performance.now()
    if (sentAt >= startAt) {
      record(now - sentAt)
      if (status !== 200) errors++
      lastAt = now
    }
    if (closing) socket.destroy()
    else send()
  }
  const open = () => {
    carry = undefined
    body = -1
    closing = false
    let connected = false
    socket = connect({ host: base.hostname, port: Number(base.port), noDelay: true }, () => {
      connected = true
      send()
    })
    socket.on('data', read)
    socket.on('error', () => {})
    socket.on('close', () => {
      // a request left without its answer (reset, or the server closed), or a connection refused: an error, then
      // a new connection
      if (busy ? sentAt >= startAt : !connected && performance.now() >= startAt) errors++
      busy = false
      if (performance.now() >= endAt) done()
      else setTimeout(open, closing ? 0 : 10)
    })
  }
  function read(chunk: Buffer) {
    const buf = carry ? Buffer.concat([carry, chunk]) : chunk
    carry = undefined
    let at = 0
    while (at < buf.length) {
      if (body < 0) {
        const end = buf.indexOf(HEAD_END, at)
        if (end < 0) {
          if (buf.length - at > MAX_HEAD) throw new Error('load: an answer head over 64 KiB')
          carry = buf.subarray(at)
          return
        }
        const text = buf.toString('latin1', at, end)
        status = Number(text.slice(9, 12))
        const length = /\r\ncontent-length: *(\d+)/i.exec(text)
        if (!length)
          throw new Error(`load: an answer without Content-Length: ${text.split('\r\n')[0]}`)
        body = Number(length[1])
        closing = /\r\nconnection: *close/i.test(text)
        at = end + 4
      }
      const take = Math.min(body, buf.length - at)
      body -= take
      at += take
      if (body > 0) return
      body = -1
      answered()
    }
  }
  open()
}

let cpu0 = process.cpuUsage()
let cpuFrom = performance.now()
setTimeout(
  () => {
    cpu0 = process.cpuUsage()
    cpuFrom = performance.now()
  },
  Math.max(0, startAt - performance.now()),
)
let running = opts.connections
let finished = false
/** A request still unanswered this long after the window closes is counted as an error, and the run ends. */
const LATE_MS = 10_000
const finish = (force = false) => {
  if (finished) return
  if (!force && --running > 0) return
  finished = true
  // forced: the connections still waiting for an answer
  if (force) errors += running
  const cpuUsed = process.cpuUsage(cpu0)
  // from the window's start to its last answer (at least 1 ms: no answer at all is a rate of 0, not NaN)
  const elapsed = Math.max(lastAt - startAt, 1) / 1000
  const sorted = latencies.subarray(0, recorded).sort()
  const pct = (p: number) =>
    Number((sorted[Math.min(recorded - 1, Math.floor(recorded * p))] ?? 0).toFixed(2))
  let sum = 0
  for (let i = 0; i < recorded; i++) sum += sorted[i]!
  console.log(
    JSON.stringify({
      requests: recorded,
      errors,
      rps: Math.round(recorded / elapsed),
      p50: pct(0.5),
      p99: pct(0.99),
      max: pct(1),
      mean: Number((sum / (recorded || 1)).toFixed(2)),
      cpu: Math.round((cpuUsed.user + cpuUsed.system) / 10 / (performance.now() - cpuFrom)),
    }),
  )
  process.exit(0)
}
setTimeout(() => finish(true), endAt - performance.now() + LATE_MS)
for (let i = 0; i < opts.connections; i++) {
  let ended = false
  client(() => {
    if (ended) return
    ended = true
    finish()
  })
}
