import { retentionCases } from './retention.cases.ts'

/** Retention over the embedded libSQL telemetry store (the default). */
retentionCases('embedded store', async () => ({}))
