import { onInflux } from '../../_support/influx.ts'
import { retentionCases } from './retention.cases.ts'

/** Retention over a real InfluxDB 2.x: the product rules become delete API calls. */
await onInflux(retentionCases)
