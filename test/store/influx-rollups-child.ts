/**
 * Child process of test/store/influx-rollups.test.ts (not a test file): opens the InfluxDB store with rollups on
 * the buckets given as JSON in argv[2], writes the points of argv[3] (JSON) with its clock argv[4] ms ahead (the
 * test's clock), prints `written`, then waits for the test to SIGKILL it: its marks stay pending, its roller never
 * rolls them (its settle time is 30 s away).
 */
import { InfluxTelemetryStore, type InfluxOptions } from '../../store/influx/telemetry.ts'
import type { TelemetryPoint } from '../../store/telemetry.ts'

const opts = JSON.parse(process.argv[2]!) as InfluxOptions
const points = JSON.parse(process.argv[3]!) as TelemetryPoint[]
const skew = Number(process.argv[4] ?? 0)
const store = await InfluxTelemetryStore.open({ ...opts, now: () => Date.now() + skew })
await store.write(points)
console.log('written')
setInterval(() => {}, 1000)
