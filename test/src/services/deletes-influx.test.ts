import { onInflux } from '../../_support/influx.ts'
import { deleteCases } from './deletes.cases.ts'

/** Deletes over a real InfluxDB 2.x. */
await onInflux(deleteCases)
