import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { goLoadBinary } from './go-load.ts'

/** The JSON argument of a child: inline, or `@path` of a file holding it. */
export function argJson<T>(arg: string): T {
  return JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg) as T
}

export interface LoadResult {
  requests: number
  errors: number
  rps: number
  p50: number
  p99: number
  max: number
  /** Mean latency, ms. */
  mean: number
  /** The load generator's CPU over the measured window, % of one core. */
  cpu: number
}

/** How long load.ts may take to start (tsx compiling it on a busy machine), in seconds. */
const LOAD_START_MARGIN_S = 60

/** Runs bench/_support/load.ts in a child process against `url` and returns its figures. */
export function load(opts: {
  url: string
  paths: readonly string[]
  connections: number
  seconds?: number
  warmup?: number
  headers?: Record<string, string>
}): Promise<LoadResult> {
  const o = { seconds: 5, warmup: 1, ...opts }
  // load.ts ends itself 10 s after its window; a child past that (stuck starting, on a machine that is far too busy)
  // fails the run with its name instead of holding it
  const timeoutMs = (o.warmup + o.seconds + 10 + LOAD_START_MARGIN_S) * 1000
  return childJson(join(import.meta.dirname, 'load.ts'), JSON.stringify(o), undefined, timeoutMs)
}

/** A markdown table of rows. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n')
}

export interface MqttLoadResult {
  acked: number
  seconds: number
  rate: number
  p50: number
  p99: number
  errors: number
  connectMs: number
  /** The load generator's CPU over the measured window, % of one core. */
  cpu: number
  /** The load generator's CPU per acknowledged message over the measured window, µs. */
  cpuUsPerMsg: number
}

/**
 * The options of the MQTT load generators: mqtt-load.ts, mqtt-raw-load.ts and the Go one (bench/mqttload, which
 * does not take `freshValues`).
 */
export interface MqttLoadOpts {
  url: string
  devices: Array<{ clientId: string; username?: string; password?: string; topic: string }>
  inflight: number
  seconds: number
  warmup?: number
  points: number
  intervalMs?: number
  /** Raw-socket generator: new values in every message (see mqtt-wire.ts LoadOpts). */
  freshValues?: boolean
}

/** Called when a load generator's measured window starts and ends (to take the target's CPU over it). */
export type LoadWindow = (mark: 'start' | 'end') => void

/** Runs bench/_support/mqtt-load.ts (MQTT.js clients) in a child process and returns its figures. */
export function mqttLoad(opts: MqttLoadOpts, window?: LoadWindow): Promise<MqttLoadResult> {
  return mqttChild('mqtt-load.ts', opts, window)
}

/**
 * Runs bench/_support/mqtt-raw-load.ts (pre-encoded MQTT on raw sockets: a fraction of MQTT.js's CPU per message)
 * in a child process and returns its figures.
 */
export function mqttRawLoad(opts: MqttLoadOpts, window?: LoadWindow): Promise<MqttLoadResult> {
  return mqttChild('mqtt-raw-load.ts', opts, window)
}

/** The Go generator's figures: MqttLoadResult's, and its counts and CPU over the whole run. */
export interface GoLoadResult extends MqttLoadResult {
  /** PUBLISHes sent over the whole run (warm-up, window and the drain after it). */
  published: number
  /** Their PUBACKs: equal to `published` unless a publish failed. */
  ackedTotal: number
  /** The generator's user and system CPU over the window (getrusage), µs. */
  cpuUserUs: number
  cpuSysUs: number
  gomaxprocs: number
}

/**
 * Runs the Go generator (bench/mqttload, paho.mqtt.golang clients; built by go-load.ts when its sources changed)
 * with the options on its standard input, and returns its figures. Throws GoLoadUnavailable without Go.
 */
export function mqttGoLoad(opts: MqttLoadOpts, window?: LoadWindow): Promise<GoLoadResult> {
  const input = JSON.stringify({ warmup: 2, ...opts, marks: window !== undefined })
  return commandJson<GoLoadResult>(goLoadBinary(), ['-'], {
    input,
    onLine: markLines(window),
    name: 'bench/mqttload',
  })
}

function mqttChild(file: string, opts: MqttLoadOpts, window?: LoadWindow) {
  return childJson<MqttLoadResult>(
    join(import.meta.dirname, file),
    JSON.stringify({ warmup: 2, ...opts, marks: window !== undefined }),
    markLines(window),
  )
}

/** A generator's output line handler that calls `window` on its `{"mark":…}` lines. */
function markLines(window?: LoadWindow) {
  return (line: string) => {
    const m = /^\{"mark":"(start|end)"\}$/.exec(line)
    if (m && window) window(m[1] as 'start' | 'end')
  }
}

/**
 * Runs a TypeScript file in a child process and parses the last line it prints as JSON; `onLine` sees each line
 * as it comes. The argument goes through a temp file (`@path`) when it is too long for a command line.
 */
export function childJson<T>(
  file: string,
  arg: string,
  onLine?: (line: string) => void,
  timeoutMs?: number,
): Promise<T> {
  if (arg.length > 64_000) {
    const path = join(mkdtempSync(join(tmpdir(), 'devicecloud-bench-arg-')), 'arg.json')
    writeFileSync(path, arg)
    arg = `@${path}`
  }
  return commandJson(process.execPath, ['--import', 'tsx', file, arg], {
    name: file,
    onLine,
    timeoutMs,
  })
}

/**
 * A TypeScript file in a child process driven line by line: `ask(line)` writes a command to its standard input and
 * resolves with the next JSON line it prints; `next()` only waits for that line (its first, say). Its standard
 * error goes to this process's; `close()` ends its input (it exits).
 */
export function childConversation(file: string, arg: string) {
  if (arg.length > 64_000) {
    const path = join(mkdtempSync(join(tmpdir(), 'devicecloud-bench-arg-')), 'arg.json')
    writeFileSync(path, arg)
    arg = `@${path}`
  }
  const child = spawn(process.execPath, ['--import', 'tsx', file, arg], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const waiting: Array<{ resolve: (v: unknown) => void; reject: (e: Error) => void }> = []
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('{')) waiting.shift()?.resolve(JSON.parse(line))
  })
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${file} exited (${code})`))
  })
  const next = <T>() =>
    new Promise<T>((resolve, reject) => waiting.push({ resolve: (v) => resolve(v as T), reject }))
  return {
    next,
    ask: <T>(line: string) => {
      const answer = next<T>()
      child.stdin.write(`${line}\n`)
      return answer
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.stdin.end()
      }),
  }
}

/**
 * Runs `command` with `args` (and `input` on its standard input), parsing the last line it prints as JSON;
 * `onLine` sees each line as it comes. A failure is reported as `<name> failed (<exit code>): <output>`; a child
 * still running after `timeoutMs` is killed and reported as `<name> did not finish within <n> s: <output>`.
 */
export function commandJson<T>(
  command: string,
  args: readonly string[],
  {
    input,
    onLine,
    name = command,
    timeoutMs,
  }: { input?: string; onLine?: (line: string) => void; name?: string; timeoutMs?: number } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'],
    })
    let late = false
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => ((late = true), child.kill('SIGKILL')), timeoutMs)
    child.stdin?.end(input)
    let out = ''
    let seen = 0
    child.stdout!.on('data', (d) => {
      out += d
      if (!onLine) return
      for (let nl = out.indexOf('\n', seen); nl >= 0; nl = out.indexOf('\n', seen)) {
        onLine(out.slice(seen, nl))
        seen = nl + 1
      }
    })
    child.on('error', (e) => (clearTimeout(timer), reject(e)))
    child.on('close', (code) => {
      clearTimeout(timer)
      if (late)
        return reject(new Error(`${name} did not finish within ${timeoutMs! / 1000} s: ${out}`))
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as T)
      } catch {
        reject(new Error(`${name} failed (${code}): ${out}`))
      }
    })
  })
}

/**
 * The tables and indexes holding the embedded store's values (store/tsdb/file.ts): the chunks, their
 * index, the time columns the series of a device share, and the value packs of a device's hours.
 */
export const VALUE_TABLES = [
  'chunks',
  'chunks_series_start',
  'chunk_times',
  'sqlite_autoindex_chunk_times_1',
  'chunk_packs',
]

/**
 * The event log's tables and indexes in the metadata database: the tail (`events`), its index by device
 * (`event_devices`, filled apart from ingest) and the folded blocks.
 */
export const EVENT_LOG_TABLES = [
  'events',
  'events_tenant',
  'event_devices',
  'events_product',
  'event_blocks',
  'event_blocks_tenant',
  'event_blocks_device',
  'event_blocks_product',
]
