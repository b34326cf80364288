import { kits } from '../src/routes/_variant.ts'
import { groupDataCases } from './group-data.cases.ts'

/** group_data over the embedded libSQL telemetry store, in both API variants. */
groupDataCases('embedded store', kits.A, async () => ({}))
groupDataCases('embedded store', kits.B, async () => ({}))
