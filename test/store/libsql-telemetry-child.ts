/**
 * Child process of test/store/libsql-telemetry.test.ts (not a test file): opens the embedded telemetry store on
 * argv[2] and writes batches, printing `acked <k>` after write k resolved, until the test SIGKILLs it.
 * Modes (argv[3]): `flushing` (flushes and compactions every few ms race the writes), `wal` (nothing leaves the
 * WAL), `delete` (writes two devices, deletes one, then acks and waits: the WAL still holds the deleted values),
 * `delete-point` (writes two devices, deletes data point `a` of product `p`, then acks and waits, as `delete`).
 */
import { LibsqlTelemetryStore } from '../../store/libsql/telemetry.ts'
import type { TelemetryPoint } from '../../store/telemetry.ts'

export const BASE = Date.UTC(2026, 0, 1)
export const PER_BATCH = 1000
export const MAX_BATCHES = 400

/** Batch k: data point `a` numbers, `b` strings, 100 ms apart, times unique across batches. */
export function batch(k: number, deviceID = 'dev'): TelemetryPoint[] {
  return Array.from({ length: PER_BATCH }, (_, i) => {
    const n = k * PER_BATCH + i
    return {
      tenantID: 't1',
      productID: 'p',
      deviceID,
      dataPointID: i % 2 ? 'a' : 'b',
      time: BASE + n * 100,
      value: i % 2 ? n : `s${n}`,
    }
  })
}

if (process.argv[1]?.endsWith('libsql-telemetry-child.ts')) {
  const [url, mode] = process.argv.slice(2) as [string, string]
  const walOnly = mode !== 'flushing'
  const store = await LibsqlTelemetryStore.open({
    url,
    flushIntervalMs: walOnly ? 0 : 15,
    flushPoints: walOnly ? 1e9 : 2500,
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
    }
  }
}
