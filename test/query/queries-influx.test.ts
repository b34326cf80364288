import { onInflux } from '../_support/influx.ts'
import { queryCases } from './queries.cases.ts'

/** original_data and metrics_data over a real InfluxDB 2.x (Flux computes the aggregates). */
await onInflux(queryCases)
