/**
 * `npm run bench`: runs every bench/*.bench.ts in turn (or those whose name contains an argument), each in its
 * own process, and prints their figures. bench/README.md keeps the latest results.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import os from 'node:os'
import { startFlags } from './_support/start-flags.ts'

const dir = import.meta.dirname
const filters = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()

console.log(`# DeviceCloud benchmarks, ${new Date().toISOString()}`)
console.log(
  `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`,
)
const flags = startFlags()
let failed = 0
/**
 * The machine's load average (1 min) before a bench: above 1.5x its cores (a bench just ended leaves ~1x), other
 * work shares the cores and the figures are not comparable.
 */
function loadNote(): string {
  const [one] = os.loadavg()
  const busy = one! > 1.5 * os.cpus().length
  return `load average ${one!.toFixed(1)} on ${os.cpus().length} cores${busy ? ': OTHER WORK IS RUNNING, figures are preliminary' : ''}`
}
for (const f of files) {
  console.log(`## ${f}`)
  console.log(`${loadNote()}\n`)
  // the flags `npm start` gives the service, so a bench that runs it in-process measures the same
  const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', join(dir, f)], {
    stdio: 'inherit',
  })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
