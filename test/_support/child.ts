/** Runs one uvu test file (spawned by test/run.ts) and exits when its suites are done. */
import { relative } from 'node:path'
import { pathToFileURL } from 'node:url'

const file = process.argv[2]!
const g = globalThis as unknown as { UVU_DEFER: number; UVU_QUEUE: unknown[][]; UVU_INDEX: number }
g.UVU_DEFER = 1
const uvu = await import('uvu')
g.UVU_INDEX = 0
g.UVU_QUEUE.push([relative(process.cwd(), file)])
await import(pathToFileURL(file).href)
await uvu.exec(false)
process.exit(process.exitCode ?? 0)
