/**
 * Structured logs: one JSON line per event (pino), or human-readable lines with LOG_FORMAT=pretty. The only module
 * that imports pino; the rest of the code sees the `Logger` interface and gets child loggers
 * (`logger.child({ component: 'commands' })`).
 */
import { pino, type DestinationStream } from 'pino'
import pretty from 'pino-pretty'

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

/** Lines gather up to this many bytes before a write (see `buffered`). */
const LOG_BUFFER_BYTES = 4096
/** ...and wait at most this long. */
const LOG_FLUSH_MS = 100

/**
 * A destination writing its lines in chunks: a write of each line (an access line per request) cost the event loop
 * ~8 µs of a detail request's ~150 (the write call, a thread-pool hand-off on a busy machine). Lines wait until
 * LOG_BUFFER_BYTES have gathered or LOG_FLUSH_MS has passed, and a chunk is written synchronously, so lines land in
 * the order they were logged; an 'exit' listener writes what is left (process.exit included) after every chunk
 * before it, so only a kill -9 can lose the last LOG_FLUSH_MS of lines. (An asynchronous write of a chunk could still
 * be in the thread pool at the exit, and land after the last lines or never.) A reader of stdout that stops reading
 * makes the writer wait, as pino's own default destination does, rather than hold lines without bound.
 */
function buffered(dest: number | string): DestinationStream & { end(): void } {
  const out = pino.destination({ dest, sync: true, minLength: LOG_BUFFER_BYTES })
  // sonic-boom's state (its types leave it out): nothing to flush before the file is open, once it is closed, or
  // with no bytes waiting (a flush of nothing would still write 0 bytes, ten times a second on an idle node)
  const state = out as unknown as { fd: number; destroyed: boolean; _len: number }
  const waiting = () => state._len > 0 && state.fd >= 0 && !state.destroyed
  const timer = setInterval(() => waiting() && out.flush(), LOG_FLUSH_MS)
  timer.unref()
  // pino flushes at exit only its asynchronous destinations; a stdout that is gone by then (EPIPE) takes no lines
  const atExit = () => {
    try {
      if (waiting()) out.flushSync()
    } catch {}
  }
  process.on('exit', atExit)
  out.on('close', () => {
    clearInterval(timer)
    process.off('exit', atExit)
  })
  return out
}

let stdout: DestinationStream | undefined
/** One stdout destination shared by every logger of the process (tests start several services). */
const standardOut = () => (stdout ??= buffered(1))

/** A root logger. Every line carries `time`, `level` (as a name) and `msg`; errors go under `err` with their stack. */
export function createLogger(opts: LoggerOptions): Logger {
  const out = (opts.destination as DestinationStream | undefined) ?? standardOut()
  let destination = out
  if (opts.format === 'pretty') {
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
export const fileDestination = (path: string): LogDestination & { end(): void } => buffered(path)

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
