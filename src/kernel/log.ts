/**
 * Structured logs: one JSON line per event (pino), or human-readable lines with LOG_FORMAT=pretty. The only module
 * that imports pino; the rest of the code sees the `Logger` interface and gets child loggers
 * (`logger.child({ component: 'commands' })`).
 */
import { pino, type DestinationStream } from 'pino'
import type PinoPretty from 'pino-pretty'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

type LogMethod = {
  (obj: object, msg?: string): void
  (msg: string): void
}

/** What code logs through: leveled methods taking an object of fields and a message, and child loggers. */
export interface Logger {
  debug: LogMethod
  info: LogMethod
  warn: LogMethod
  error: LogMethod
  child(bindings: Record<string, unknown>): Logger
  isLevelEnabled(level: string): boolean
}

/** Where log lines go: anything with `write(line)` (a test's collector, a file stream); default stdout. */
export interface LogDestination {
  write(line: string): void
}

export interface LoggerOptions {
  level: LogLevel
  /** json (default): one JSON object per line; pretty: coloured lines for a terminal. */
  format?: 'json' | 'pretty'
  destination?: LogDestination
}

/**
 * Fields that never reach a log line: credentials under any of these names, at the top level or one or two levels
 * down (`headers.authorization`, `body.password`).
 */
const SECRET_KEYS = [
  'authorization',
  'password',
  'token',
  'secret',
  'appToken',
  'cookie',
  'x-hook-secret',
]
export const REDACT_PATHS = SECRET_KEYS.flatMap((k) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`
  const sep = key.startsWith('[') ? '' : '.'
  return [key, `*${sep}${key}`, `*.*${sep}${key}`]
})

/** Lines gather up to this many bytes before a write (see `LineSink`). */
const LOG_BUFFER_BYTES = 4096
/** ...and wait at most this long. */
const LOG_FLUSH_MS = 100
/** At most this many bytes of lines wait for a reader that stopped reading; lines beyond are dropped and counted. */
const LOG_MAX_PENDING_BYTES = 1 << 20

/** At exit, how long the last lines may wait for a reader that is slow but reading. */
const EXIT_WAIT_MS = 500
/** What `Atomics.wait` sleeps on between two tries at exit. */
const pause = new Int32Array(new SharedArrayBuffer(4))

let droppedTotal = 0
/** Log lines dropped since the process started because their reader stopped reading (every sink together). */
export const logLinesDropped = () => droppedTotal

/**
 * A destination that never blocks the service on its reader. Lines gather until LOG_BUFFER_BYTES or LOG_FLUSH_MS
 * and go out as one write, in the order logged (a write per access line cost the event loop ~8 µs of a detail
 * request's ~150). A pipe or socket as stdout (a log shipper, `| tee`, a parent process) is written non-blocking
 * (see `openDestination`): when its reader stops reading, the rest of a chunk waits, up to
 * LOG_MAX_PENDING_BYTES, lines beyond are dropped and counted (`logLinesDropped`, the metric
 * `devicecloud_log_lines_dropped_total`), and when writing resumes one line says how many were lost. A file or a
 * terminal is written synchronously (its writes do not wait on a reader); a descriptor that cannot be made
 * non-blocking is written from the thread pool, one write at a time. An 'exit' listener writes what is
 * left, waiting at most EXIT_WAIT_MS for a slow reader, so a process.exit keeps its last lines whenever the reader
 * keeps up.
 */
export class LineSink implements DestinationStream {
  private readonly fd: number
  private readonly blocking: boolean
  private pending: string[] = []
  private pendingBytes = 0
  /** The bytes of a write the reader did not take yet (a non-blocking pipe that was full). */
  private rest: Buffer | undefined
  private inFlight = false
  private dropped = 0
  private closed = false
  private readonly timer: NodeJS.Timeout
  private readonly atExit = () => this.drainSync()

  constructor(dest: number | string) {
    const opened = openDestination(dest)
    this.fd = opened.fd
    this.blocking = opened.blocking
    this.timer = setInterval(() => this.flush(), LOG_FLUSH_MS)
    this.timer.unref()
    process.on('exit', this.atExit)
  }

  write(line: string): boolean {
    if (this.closed) return false
    if (this.pendingBytes + line.length > LOG_MAX_PENDING_BYTES) {
      this.dropped++
      droppedTotal++
      return false
    }
    this.pending.push(line)
    this.pendingBytes += line.length
    if (this.pendingBytes >= LOG_BUFFER_BYTES) this.flush()
    return true
  }

  /** Writes what waits, as far as the reader takes it now. */
  flush(): void {
    if (this.inFlight || this.closed) return
    if (this.rest && !this.writeNow(this.rest)) return
    this.rest = undefined
    const chunk = this.take()
    if (!chunk) return
    if (this.blocking) this.writeLater(chunk)
    else this.writeNow(chunk)
  }

  /** Writes every line left and stops (the 'exit' listener does the same without stopping). */
  end(): void {
    this.drainSync()
    this.closed = true
    clearInterval(this.timer)
    process.off('exit', this.atExit)
    if (this.fd > 2) fs.closeSync(this.fd)
  }

  /** The waiting lines as one buffer (after a line saying how many were dropped, if any were), or undefined. */
  private take(): Buffer | undefined {
    if (this.pendingBytes === 0 && this.dropped === 0) return undefined
    if (this.dropped > 0) {
      this.pending.unshift(droppedLine(this.dropped))
      this.dropped = 0
    }
    const chunk = Buffer.from(this.pending.join(''))
    this.pending = []
    this.pendingBytes = 0
    return chunk
  }

  /** Writes without waiting: true when the reader took all of `chunk`, else its rest is kept for the next flush. */
  private writeNow(chunk: Buffer): boolean {
    let off = 0
    try {
      while (off < chunk.length) off += fs.writeSync(this.fd, chunk, off)
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return true // EPIPE: a reader gone takes no lines
      this.rest = chunk.subarray(off)
      return false
    }
  }

  /** A descriptor that may block: written from the thread pool, one write at a time. */
  private writeLater(chunk: Buffer, off = 0): void {
    this.inFlight = true
    fs.write(this.fd, chunk, off, chunk.length - off, null, (err, n) => {
      if (!err && off + n < chunk.length) return this.writeLater(chunk, off + n)
      this.inFlight = false
      if (this.pendingBytes >= LOG_BUFFER_BYTES) this.flush()
    })
  }

  /** At exit: what is left, waiting for a slow reader for at most EXIT_WAIT_MS in all (a stalled one gets none). */
  private drainSync(): void {
    if (this.inFlight || this.closed) return // a write in the thread pool may not have landed: order first
    const until = Date.now() + EXIT_WAIT_MS
    try {
      for (;;) {
        if (!this.rest || this.writeNow(this.rest)) {
          this.rest = this.take()
          if (!this.rest) return
          continue
        }
        if (Date.now() >= until) return
        Atomics.wait(pause, 0, 0, 5)
      }
    } catch {
      // a stdout gone by the exit takes no lines
    }
  }
}

const droppedLine = (n: number) =>
  JSON.stringify({
    level: 'warn',
    time: new Date().toISOString(),
    component: 'log',
    dropped: n,
    msg: `${n} log line(s) dropped: the log reader was not reading`,
  }) + '\n'

/**
 * The descriptor a sink writes: a path is opened for appending. A pipe or socket as stdout or stderr is made
 * non-blocking the way Node makes it for `process.stdout` (libuv sets O_NONBLOCK when it opens the descriptor as a
 * stream; that stream is never written here, so nothing queues in it), so a write the reader cannot take fails
 * with EAGAIN instead of waiting. Any other pipe or socket is written from the thread pool.
 */
function openDestination(dest: number | string): { fd: number; blocking: boolean } {
  const { O_WRONLY, O_APPEND, O_CREAT } = fs.constants
  if (typeof dest === 'string')
    return { fd: fs.openSync(dest, O_WRONLY | O_APPEND | O_CREAT), blocking: false }
  let stat: fs.Stats
  try {
    stat = fs.fstatSync(dest)
  } catch {
    return { fd: dest, blocking: true }
  }
  if (!stat.isFIFO() && !stat.isSocket()) return { fd: dest, blocking: false } // a file or a terminal
  if (dest === 1) void process.stdout
  else if (dest === 2) void process.stderr
  return { fd: dest, blocking: !nonBlocking(dest) }
}

/** Whether a descriptor is in non-blocking mode (Linux's /proc/self/fdinfo; elsewhere assumed after the above). */
function nonBlocking(fd: number): boolean {
  if (fd !== 1 && fd !== 2) return false
  try {
    const flags = /flags:\s+([0-7]+)/.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1]
    return flags === undefined || (parseInt(flags, 8) & fs.constants.O_NONBLOCK) !== 0
  } catch {
    return true
  }
}

let stdout: DestinationStream | undefined
/** One stdout destination shared by every logger of the process (tests start several services). */
const standardOut = () => (stdout ??= new LineSink(1))

/** A root logger. Every line carries `time`, `level` (as a name) and `msg`; errors go under `err` with their stack. */
export function createLogger(opts: LoggerOptions): Logger {
  const out = opts.destination ?? standardOut()
  let destination = out
  if (opts.format === 'pretty') {
    // loaded only for LOG_FORMAT=pretty (~60 ms of start and ~1 MB of heap otherwise)
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty
    const prettify = pretty.prettyFactory({ colorize: false, translateTime: 'SYS:standard' })
    destination = { write: (line: string) => out.write(prettify(line)) }
  }
  return pino(
    {
      level: opts.level,
      base: undefined,
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    destination,
  )
}

/**
 * A child for lines whose fields are fixed and never secret (the access log): it skips the redaction pass, which
 * costs ~10 µs a line.
 */
export function unredactedChild(logger: Logger, bindings: Record<string, unknown>): Logger {
  return (logger as pino.Logger).child(bindings, { redact: [] })
}

/** A file written as stdout is (in chunks): for benches writing to /dev/null as production does. */
export const fileDestination = (path: string): LogDestination & { end(): void } =>
  new LineSink(path)

let fallback: Logger | undefined
/** For modules built without a logger (unit tests build some parts alone): errors as JSON on stdout. */
export const fallbackLogger = (): Logger => (fallback ??= createLogger({ level: 'error' }))

/**
 * The `(message, error?)` callback the services and ingest take as `log`, writing to `logger` (or the fallback)
 * as `component`: with an error, an error line with its stack; without, a warning.
 */
export function errorLog(
  logger: Logger | undefined,
  component: string,
): (message: string, e?: unknown) => void {
  const log = (logger ?? fallbackLogger()).child({ component })
  return (message, e) => (e === undefined ? log.warn(message) : log.error({ err: e }, message))
}
