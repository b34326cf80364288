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

let stdout: DestinationStream | undefined
/** One stdout destination shared by every logger of the process (tests start several services). */
const standardOut = () => (stdout ??= pino.destination({ dest: 1, sync: false }))

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

/** A file written as stdout is (buffered, asynchronous): for benches writing to /dev/null as production does. */
export const fileDestination = (path: string): LogDestination & { end(): void } =>
  pino.destination({ dest: path, sync: false })

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
