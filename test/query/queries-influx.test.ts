import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { INFLUX_MISSING, influxForTests } from '../_support/influx.ts'
import { queryCases } from './queries.cases.ts'

/** original_data and metrics_data over a real InfluxDB 2.x (Flux computes the aggregates). */
const influx = await influxForTests()

if (influx) {
  queryCases(
    'InfluxDB store',
    async () => ({
      INFLUX_URL: influx.url,
      INFLUX_TOKEN: influx.token,
      INFLUX_ORG: influx.org,
      INFLUX_BUCKET: influx.bucket,
    }),
    () => influx.stop(),
  )
} else if (process.env.CI) {
  test('InfluxDB in CI :: available (.ci/run builds it with scripts/influxd.sh build)', () => {
    assert.unreachable(`${INFLUX_MISSING} (CI is set, so the InfluxDB half must run)`)
  })
  test.run()
} else console.log(INFLUX_MISSING)
