/**
 * Child process of test/store/libsql-telemetry.test.ts and libsql-telemetry-port.test.ts (not a test file): opens
 * the embedded telemetry store on argv[2] (in its worker thread when argv[4] is `worker`) and writes batches, printing `acked <k>` after write k resolved, until the test SIGKILLs it.
 * Modes (argv[3]): `flushing` (flushes, in two steps, and compactions every few ms race the writes), `wal` (nothing leaves the
 * WAL), `delete` (writes two devices, deletes one, then acks and waits: the WAL still holds the deleted values),
 * `delete-point` (writes two devices, deletes data point `a` of product `p`, then acks and waits, as `delete`).
 */
import { LibsqlTelemetryStore } from '../../store/tsdb/store.ts'
import { WorkerTelemetryStore } from '../../store/tsdb/worker/proxy.ts'
import type { TelemetryPoint, TelemetryStore, TelemetryValue } from '../../store/telemetry.ts'
import { spawn } from 'node:child_process'
import * as assert from 'uvu/assert'

export const BASE = Date.UTC(2026, 0, 1)
export const PER_BATCH = 1000
export const MAX_BATCHES = 400

/**
 * Batch k: messages of two points each, data point `a` a number and `b` a string at the same time, 200 ms apart
 * plus a jitter of 0-6 ms (irregular times: packed, and shared by a and b once compacted), times unique across
 * batches.
 */
export function batch(k: number, deviceID = 'dev'): TelemetryPoint[] {
  return Array.from({ length: PER_BATCH }, (_, i) => {
    const n = k * PER_BATCH + i
    return {
      tenantID: 't1',
      productID: 'p',
      deviceID,
      dataPointID: i % 2 ? 'a' : 'b',
      time: BASE + Math.floor(n / 2) * 200 + (Math.floor(n / 2) % 7),
      value: i % 2 ? n : `s${n}`,
    }
  })
}

/**
 * Runs the child in `mode` (its store in a worker thread with `where` = 'worker') and SIGKILLs it as soon as it
 * printed `acked <k>` with k ≥ killAt; returns k.
 */
export function runChild(url: string, mode: string, killAt: number, where = ''): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', import.meta.filename, url, mode, where],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let out = ''
  let acked = -1
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => (child.kill('SIGKILL'), reject(new Error(`child timed out: ${out}`))),
      30_000,
    )
    child.stdout.on('data', (d: Buffer) => {
      out += String(d)
      for (const m of out.matchAll(/acked (\d+)/g)) acked = Math.max(acked, Number(m[1]))
      if (acked >= killAt) child.kill('SIGKILL')
    })
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (signal === 'SIGKILL' && acked >= killAt) resolve(acked)
      else reject(new Error(`child exited ${code} ${signal}: ${out}`))
    })
  })
}

/** Asserts batches 0..acked of the child are all there and every other batch is all or nothing. */
export async function assertBatches(store: TelemetryStore, acked: number, deviceID = 'dev') {
  const end = BASE + MAX_BATCHES * PER_BATCH * 100
  const r = await store.readRaw({
    tenantID: 't1',
    deviceID,
    dataPointIDs: ['a', 'b'],
    start: BASE,
    end,
  })
  const got = new Map<string, TelemetryValue>()
  for (const dp of ['a', 'b'])
    r.get(dp)!.time.forEach((t, i) => got.set(`${dp}:${t}`, r.get(dp)!.value[i]!))
  let complete = 0
  for (let k = 0; k < MAX_BATCHES; k++) {
    const want = batch(k, deviceID)
    const present = want.filter((p) => got.get(`${p.dataPointID}:${p.time}`) === p.value).length
    assert.ok(present === 0 || present === PER_BATCH, `batch ${k} partly stored: ${present}`)
    if (present) complete++
    if (k <= acked) assert.is(present, PER_BATCH, `acked batch ${k} lost`)
  }
  assert.is(got.size, complete * PER_BATCH, 'nothing else stored')
}

if (process.argv[1]?.endsWith('libsql-telemetry-child.ts')) {
  const [url, mode, where] = process.argv.slice(2) as [string, string, string?]
  const walOnly = mode !== 'flushing'
  const store = await (where === 'worker' ? WorkerTelemetryStore : LibsqlTelemetryStore).open({
    url,
    flushIntervalMs: walOnly ? 0 : 15,
    flushPoints: walOnly ? 1e9 : 2500,
    flushStep: 1, // a and b in two lock holds: the kill may land between them
    maxChunksPerBucket: 3,
    compactGraceMs: 0,
  })
  setTimeout(() => process.exit(3), 60_000) // never outlive a broken test
  if (mode === 'delete') {
    await store.write([...batch(1, 'kept'), ...batch(0, 'gone')]) // gone gets the highest series ids
    await store.deleteDevice('t1', 'gone')
    process.stdout.write('acked 0\n')
  } else if (mode === 'delete-point') {
    await store.write([...batch(1, 'kept'), ...batch(0, 'gone')])
    await store.deleteDataPoint('t1', 'p', 'a')
    process.stdout.write('acked 0\n')
  } else {
    for (let k = 0; k < MAX_BATCHES; k++) {
      await store.write(batch(k))
      process.stdout.write(`acked ${k}\n`)
      // a turn of the event loop between batches, as writes arriving over sockets get: the embedded store's local
      // client answers on microtasks alone, so a tight loop would starve the flusher's timer (no compaction at all)
      await new Promise((r) => setImmediate(r))
    }
  }
}
