import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'

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

/** Runs bench/_support/load.ts in a child process against `url` and returns its figures. */
export function load(opts: {
  url: string
  paths: readonly string[]
  connections: number
  seconds?: number
  warmup?: number
  headers?: Record<string, string>
}): Promise<LoadResult> {
  return childJson(
    join(import.meta.dirname, 'load.ts'),
    JSON.stringify({ seconds: 5, warmup: 1, ...opts }),
  )
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

/** The options of both MQTT load generators (mqtt-load.ts and mqtt-raw-load.ts). */
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

function mqttChild(file: string, opts: MqttLoadOpts, window?: LoadWindow) {
  return childJson<MqttLoadResult>(
    join(import.meta.dirname, file),
    JSON.stringify({ warmup: 2, ...opts, marks: window !== undefined }),
    (line) => {
      const m = /^\{"mark":"(start|end)"\}$/.exec(line)
      if (m && window) window(m[1] as 'start' | 'end')
    },
  )
}

/**
 * Runs a TypeScript file in a child process and parses the last line it prints as JSON; `onLine` sees each line
 * as it comes. The argument goes through a temp file (`@path`) when it is too long for a command line.
 */
export function childJson<T>(
  file: string,
  arg: string,
  onLine?: (line: string) => void,
): Promise<T> {
  if (arg.length > 64_000) {
    const path = join(mkdtempSync(join(tmpdir(), 'devicecloud-bench-arg-')), 'arg.json')
    writeFileSync(path, arg)
    arg = `@${path}`
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, arg], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    let seen = 0
    child.stdout.on('data', (d) => {
      out += d
      if (!onLine) return
      for (let nl = out.indexOf('\n', seen); nl >= 0; nl = out.indexOf('\n', seen)) {
        onLine(out.slice(seen, nl))
        seen = nl + 1
      }
    })
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as T)
      } catch {
        reject(new Error(`${file} failed (${code}): ${out}`))
      }
    })
  })
}

/**
 * The tables and indexes holding the embedded store's values (store/libsql/telemetry-db.ts): the chunks, their
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
