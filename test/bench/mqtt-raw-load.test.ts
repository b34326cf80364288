import * as assert from 'uvu/assert'
import { mqttRawLoad } from '../../bench/_support/runner.ts'
import type { TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { mqttUrl } from '../ingest/_mqtt.ts'
import { failureOf, loadDevices, POINTS, wrongPasswordRun } from './_load-devices.ts'

let t: TestService
const raw = serviceSuite('bench: the raw-socket MQTT load generator', (svc) => (t = svc))

raw(
  'two devices, 2 in flight, 1 s against the service :: messages acknowledged, no errors, every value stored',
  async () => {
    const { devices, entries } = await loadDevices(t, 2)
    const r = await mqttRawLoad({
      url: mqttUrl(t),
      devices: entries,
      inflight: 2,
      seconds: 1,
      warmup: 0.2,
      points: POINTS,
    })
    assert.ok(r.acked > 0, `acknowledged: ${r.acked}`)
    assert.is(r.errors, 0)
    assert.ok(r.p50 > 0 && r.p99 >= r.p50, `p50 ${r.p50}, p99 ${r.p99}`)
    assert.ok(r.cpuUsPerMsg > 0)
    // what a PUBACK acknowledged is stored: every point of both devices, values as the generator writes them
    for (const d of devices) {
      const res = await t.admin.get(
        `/api/v1/original_data?deviceID=${encodeURIComponent(d.deviceID)}&time_unit=hour`,
      )
      assert.is(res.status, 200, res.text)
      assert.equal(
        res.body.map((p: { dataPointID: string }) => p.dataPointID).sort(),
        Array.from({ length: POINTS }, (_, i) => `p${i}`).sort(),
      )
      const counts = res.body.map(
        (p: { originalData: { value: number[] } }) => p.originalData.value.length,
      )
      assert.ok(counts[0] > 0, `values of ${d.deviceID}: ${counts}`)
      assert.equal(new Set(counts).size, 1, `every point of a message stored: ${counts}`)
      for (const p of res.body as Array<{ originalData: { value: number[] } }>)
        for (const v of p.originalData.value)
          assert.ok(
            v >= 10 && v < 100 && Math.abs(Math.round(v * 100) - v * 100) < 1e-6,
            `value ${v}`,
          )
    }
  },
)

raw('a wrong password :: the run fails on the refused CONNACK', async () => {
  const err = await failureOf(mqttRawLoad(await wrongPasswordRun(t)))
  assert.ok(err, 'the run rejects')
  assert.match(err.message, 'mqtt-raw-load.ts failed')
})

raw.run()
