/**
 * The Go load generator (bench/mqttload) built as the ingest bench builds it and run against the service's broker:
 * its counts add up. Without Go this file fails (CI installs it: .ci/run); nothing is skipped.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { goLoadBinary } from '../../bench/_support/go-load.ts'
import { mqttGoLoad } from '../../bench/_support/runner.ts'
import { startTestService, type TestService } from '../_support/service.ts'
import { mqttUrl } from '../ingest/_mqtt.ts'
import { failureOf, loadDevices, POINTS, wrongPasswordRun } from './_load-devices.ts'

let t: TestService
const go = suite('bench: the Go (paho) MQTT load generator')
go.before(async () => {
  goLoadBinary() // built first: a missing Go or a failed build fails here, with its reason
  t = await startTestService()
})
go.after(async () => t?.close())

go(
  'three devices, 4 in flight, 1 s against the service :: published = acknowledged = stored, no errors',
  async () => {
    const { devices, entries } = await loadDevices(t, 3)
    const marks: string[] = []
    const r = await mqttGoLoad(
      { url: mqttUrl(t), devices: entries, inflight: 4, seconds: 1, warmup: 0.3, points: POINTS },
      (m) => marks.push(m),
    )
    assert.equal(marks, ['start', 'end'])
    assert.is(r.errors, 0)
    assert.ok(r.acked > 0, `acknowledged in the window: ${r.acked}`)
    assert.is(r.ackedTotal, r.published, 'every PUBLISH sent has its PUBACK')
    assert.ok(r.acked <= r.ackedTotal, `window ${r.acked} within the run's ${r.ackedTotal}`)
    assert.is(r.rate, Math.round(r.acked / r.seconds))
    assert.ok(r.p50 > 0 && r.p99 >= r.p50, `p50 ${r.p50}, p99 ${r.p99}`)
    // getrusage splits a process's time into user and system by ticks: over 1 s of light load either may be 0
    assert.ok(r.cpuUserUs + r.cpuSysUs > 0, `user ${r.cpuUserUs} µs, sys ${r.cpuSysUs} µs`)
    assert.ok(r.cpuUsPerMsg > 0)
    // what a PUBACK acknowledged is stored: the same count of every point, over the devices the whole run's count
    let stored = 0
    for (const d of devices) {
      const res = await t.admin.get(
        `/api/v1/original_data?deviceID=${encodeURIComponent(d.deviceID)}&time_unit=hour`,
      )
      assert.is(res.status, 200, res.text)
      const counts = (res.body as Array<{ originalData: { value: number[] } }>).map(
        (p) => p.originalData.value.length,
      )
      assert.is(counts.length, POINTS)
      assert.equal(new Set(counts).size, 1, `every point of a message stored: ${String(counts)}`)
      stored += counts[0]!
    }
    // a PUBACK means stored, and every device's receipt times are distinct: one message a stored time
    assert.is(stored, r.ackedTotal, 'messages stored = PUBACKs received')
  },
)

go('a wrong password :: the run fails on the refused connection', async () => {
  const err = await failureOf(mqttGoLoad(await wrongPasswordRun(t)))
  assert.ok(err, 'the run rejects')
  assert.match(err.message, 'bench/mqttload failed (1)')
})

go.run()
