import { queryCases } from './queries.cases.ts'

/** original_data and metrics_data over the embedded libSQL telemetry store (the default). */
queryCases('embedded store', async () => ({}))
