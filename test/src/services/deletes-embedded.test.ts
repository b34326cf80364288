import { deleteCases } from './deletes.cases.ts'

/** Deletes over the embedded libSQL telemetry store (the default). */
deleteCases('embedded store', async () => ({}))
