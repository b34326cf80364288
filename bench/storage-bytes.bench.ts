/**
 * Bytes a message at steady state (issue 21), `npm run bench -- storage`: the real service on the embedded
 * stores, 100 MQTT devices sending QoS 1 messages of 10 numeric values (two decimals, 10.00-99.99, the raw-socket
 * generator) for BENCH_BYTES_SECONDS (about 200,000 messages), then the telemetry flushed and compacted (rollups
 * built), a clean stop (write-ahead logs checkpointed), and SQLite's dbstat over both files: the event log (the
 * tail and the folded blocks with their indexes), the values (chunks and their index), the rollups, and each file
 * whole, per acknowledged message. The event log is folded whole first (`eventFold.fold`): at steady state only the
 * events of the last 5-15 minutes are rows, 0.03% of 30 days.
 */
import { createClient } from '@libsql/client'
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { WorkerTelemetryStore } from '../store/tsdb/worker/proxy.ts'
import { EVENT_LOG_TABLES, VALUE_TABLES, mqttRawLoad, table } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = 100
const POINTS = 10
const SECONDS = Number(process.env.BENCH_BYTES_SECONDS ?? 35)

const { svc, dir, sendingDevices, api } = await startBenchService('bytes')
const { creds } = await sendingDevices(DEVICES, POINTS)
const r = await mqttRawLoad({
  url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
  devices: creds,
  inflight: 1,
  seconds: SECONDS,
  warmup: 0,
  points: POINTS,
  // every message its own values: repeated payloads would compress far better than a fleet's
  freshValues: true,
})
const store = svc.deps.telemetry as WorkerTelemetryStore
await store.flush()
await store.compact(true)

/** p50 / p99 ms of 20 calls of `path` after 3 warm-ups, and its answer's count. */
async function timed(path: string): Promise<{ p50: number; p99: number; count: number }> {
  const ms: number[] = []
  let count = 0
  for (let i = 0; i < 23; i++) {
    const t0 = performance.now()
    const r = await api<{ meta?: { count: number } }>('GET', path)
    if (i >= 3) ms.push(performance.now() - t0)
    count = r.meta?.count ?? -1
  }
  ms.sort((a, b) => a - b)
  return { p50: ms[9]!, p99: ms[19]!, count }
}
const device = (await api('GET', '/api/v1/devices?deviceID=bench-7')).items[0]!.id
const span = (await api('GET', '/api/v1/device_events?_limit=1')).items[0]!.msgTime as string
const endTime = encodeURIComponent(span)
const reads: Array<[string, string]> = [
  ['first page, all devices', '/api/v1/device_events?_limit=20'],
  ['page 100 (offset 1,980)', '/api/v1/device_events?_limit=20&_page=100'],
  ['first page of one device', `/api/v1/devices/${device}/events?_limit=20`],
  ['page 50 of one device', `/api/v1/devices/${device}/events?_limit=20&_page=50`],
  [
    'topic_like, up to the newest second (count)',
    `/api/v1/device_events?_limit=20&topic_like=tele&endTime=${endTime}`,
  ],
]
const asRows = []
for (const [name, path] of reads) asRows.push({ name, path, rows: await timed(path) })

// ingest for 10 s alone, then for 10 s while the fold moves everything written so far (the CPU of the fold
// below is the fold's alone: that of the second window minus the first's)
const second = (window?: (mark: 'start' | 'end') => void) =>
  mqttRawLoad(
    {
      url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
      devices: creds,
      inflight: 1,
      seconds: 10,
      warmup: 1,
      points: POINTS,
      freshValues: true,
    },
    window,
  )
const alone = await second()
let folding: ReturnType<typeof svc.deps.services.eventFold.fold> | undefined
const foldCpu = process.cpuUsage()
const during = await second((mark) => {
  if (mark === 'start') folding = svc.deps.services.eventFold.fold(Date.now() + 1)
})
const folded = await folding!
const foldCpuMs = (process.cpuUsage(foldCpu).user + process.cpuUsage(foldCpu).system) / 1000
// what is left of the tail (the messages of the second window), and the values of those 20 s compacted as a past
// hour's are: at steady state only the current hour is still in flush-sized chunks (1/720 of 30 days)
await svc.deps.services.eventFold.fold(Date.now() + 1)
await store.flush()
await store.compact(true)
await store.reclaim() // as the flusher does after a compaction
const asBlocks: Array<Awaited<ReturnType<typeof timed>>> = []
for (const { path } of asRows) asBlocks.push(await timed(path))
await svc.close()

/** One number answered by `sql` over a file of the data directory. */
async function scalar(file: string, sql: string, args: string[] = []): Promise<number> {
  const c = createClient({ url: `file:${join(dir, file)}` })
  try {
    return Number((await c.execute({ sql, args })).rows[0]![0])
  } finally {
    c.close()
  }
}
/** Bytes of the named tables and indexes of a file (dbstat). */
const bytesOf = (file: string, names: string[]) =>
  scalar(
    file,
    `SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`,
    names,
  )
/** The messages the event log holds (every acknowledged one, and the warm-up's). */
const eventCount = () =>
  scalar(
    'devicecloud.db',
    'SELECT (SELECT count(*) FROM events) + (SELECT coalesce(sum(n), 0) FROM event_blocks)',
  )
/** The values as the store encodes them: the chunks' blobs, shared time columns and packs, without SQLite's pages. */
const encodedValues = () =>
  scalar(
    'telemetry.db',
    `SELECT (SELECT coalesce(sum(length(times) + length(vals)), 0) FROM chunks)
          + (SELECT coalesce(sum(length(bytes)), 0) FROM chunk_times)
          + (SELECT coalesce(sum(length(bytes)), 0) FROM chunk_packs)`,
  )

const messages = await eventCount()
const events = await bytesOf('devicecloud.db', EVENT_LOG_TABLES)
const chunks = await bytesOf('telemetry.db', VALUE_TABLES)
const rollups = await bytesOf('telemetry.db', ['rollups'])
const encoded = await encodedValues()
const per = (b: number) => (b / messages).toFixed(1)
const fileOf = (f: string) => statSync(join(dir, f)).size
console.log(
  `\n${messages.toLocaleString('en-US')} messages of ${POINTS} values from ${DEVICES} devices (${r.acked.toLocaleString('en-US')} acknowledged in the measured ${r.seconds.toFixed(0)} s, ${Math.round(r.rate)} msg/s), after a clean stop\n`,
)
console.log(
  table(
    ['what', 'bytes a message', 'bytes a value'],
    [
      ['event log (tail, blocks and their indexes)', per(events), '-'],
      ['values (chunks and their index)', per(chunks), (chunks / messages / POINTS).toFixed(2)],
      ['values as encoded (blobs alone)', per(encoded), (encoded / messages / POINTS).toFixed(2)],
      ['rollups (1m, 1h, 1d)', per(rollups), (rollups / messages / POINTS).toFixed(2)],
      ['in all (goal at most 100)', per(events + chunks + rollups), '-'],
      ['devicecloud.db, the whole file', per(fileOf('devicecloud.db')), '-'],
      ['telemetry.db, the whole file', per(fileOf('telemetry.db')), '-'],
    ],
  ),
)
console.log(
  `\nfold: ${folded.events.toLocaleString('en-US')} events into ${folded.blocks.toLocaleString('en-US')} blocks in ${(folded.ms / 1000).toFixed(1)} s (${Math.round(folded.events / (folded.ms / 1000)).toLocaleString('en-US')} events/s; the service process's CPU over the ingest window and the fold ${(foldCpuMs / 1000).toFixed(1)} s, the fold's compression in the thread pool included)`,
)
console.log(
  `\ningest (msg/s, PUBACK p50 / p99 ms): alone ${Math.round(alone.rate)}, ${alone.p50} / ${alone.p99}; while the fold runs ${Math.round(during.rate)} (${((during.rate / alone.rate) * 100).toFixed(0)}%), ${during.p50} / ${during.p99}`,
)
console.log(
  `\nevent log reads through the API (p50 / p99 ms of 20 after 3 warm-ups), as rows and folded:\n\n${table(
    ['list', 'as rows', 'folded', 'count (rows / folded: 20 s more ingest)'],
    asRows.map((r, i) => [
      r.name,
      `${r.rows.p50.toFixed(1)} / ${r.rows.p99.toFixed(1)}`,
      `${asBlocks[i]!.p50.toFixed(1)} / ${asBlocks[i]!.p99.toFixed(1)}`,
      `${r.rows.count} / ${asBlocks[i]!.count}`,
    ]),
  )}`,
)
if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true })
else console.log(`kept ${dir}`)
