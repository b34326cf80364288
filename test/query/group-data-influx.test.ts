import { onInflux } from '../_support/influx.ts'
import { kits } from '../src/routes/_variant.ts'
import { groupDataCases } from './group-data.cases.ts'

/** group_data over a real InfluxDB 2.x. */
await onInflux((name, env, cleanup) => groupDataCases(name, kits.A, env, cleanup))
