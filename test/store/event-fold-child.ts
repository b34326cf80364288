/**
 * Child process of test/store/event-fold.test.ts (not a test file): opens the metadata database at argv[2] and folds
 * every tail event into blocks, one step at a time, printing `step <k>` after step k committed, until the test
 * SIGKILLs it (or `done` when nothing is left).
 */
import { openDb } from '../../store/libsql/db.ts'
import { EventFoldRepo } from '../../store/libsql/event-fold.ts'
import { indexStep } from '../../store/libsql/event-devices.ts'

const db = await openDb({ url: `file:${process.argv[2]}` })
const fold = new EventFoldRepo(db)
while ((await indexStep(db)).more); // a step folds indexed rows only
const boundary = await fold.boundary(Date.now() + 1)
let after: number | undefined = 0
for (let k = 1; after !== undefined; k++) {
  const step = await fold.step(boundary, after)
  after = step.next
  console.log(`step ${k}`)
}
console.log('done')
