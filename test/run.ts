/**
 * `npm test`: runs every test/**\/*.test.ts file under uvu, each in its own process (so servers, ports and
 * timers of one file never leak into another), two at a time, and ends with the plain line `N passed, N failed`.
 * `npm test -- devices` runs only files whose path contains "devices". Zero tests run is a failure. A file that
 * runs longer than TEST_FILE_TIMEOUT_S (default 600) is killed with everything it started (its process group:
 * services, brokers, browsers) and counted as failed, with what it printed: one hung file must not hang the run.
 */
import { spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { descendants } from './_support/procs.ts'

const root = join(import.meta.dirname, '..')
const filters = process.argv.slice(2)
const parallel = Number(process.env.TEST_PARALLEL ?? 2)
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_S ?? 600) * 1000

function find(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules' || name.startsWith('.')) return []
    if (statSync(path).isDirectory()) return find(path)
    return name.endsWith('.test.ts') ? [path] : []
  })
}

const files = find(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)))
  .sort()

interface Result {
  file: string
  total: number
  passed: number
  skipped: number
  code: number
  output: string
  ms: number
  timedOut: boolean
}

// eslint-disable-next-line no-control-regex -- terminal colour codes start with ESC
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '')

/**
 * Kills the child, its process group (it leads one: spawned detached) and every process it started elsewhere, so
 * nothing a hung file started (a service, a broker, a browser) outlives it.
 */
function killTree(pid: number | undefined) {
  if (pid === undefined) return
  const tree = process.platform === 'linux' ? descendants(pid) : []
  for (const target of [-pid, pid, ...tree])
    try {
      process.kill(target, 'SIGKILL')
    } catch {
      // already gone
    }
}

const running = new Set<number>()
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    running.forEach(killTree)
    process.exit(130)
  })

function runFile(file: string): Promise<Result> {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'test/_support/child.ts'), file],
      {
        cwd: root,
        env: { ...process.env, FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    )
    const pid = child.pid
    if (pid !== undefined) running.add(pid)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      killTree(pid)
    }, fileTimeoutMs)
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('close', (code) => {
      clearTimeout(timer)
      if (pid !== undefined) running.delete(pid)
      // what is left of a test file's group (a broker it did not stop) dies with it
      try {
        if (pid !== undefined) process.kill(-pid, 'SIGKILL')
      } catch {
        // nothing left
      }
      const text =
        strip(output) +
        (timedOut
          ? `\nkilled: still running after ${fileTimeoutMs / 1000} s (TEST_FILE_TIMEOUT_S)\n`
          : '')
      const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(text)?.[1] ?? 0)
      resolve({
        file,
        total: num('Total'),
        passed: num('Passed'),
        skipped: num('Skipped'),
        code: timedOut ? 1 : (code ?? 1),
        output: text,
        ms: Date.now() - started,
        timedOut,
      })
    })
  })
}

const results: Result[] = []
let next = 0
async function worker() {
  while (next < files.length) {
    const file = files[next++]!
    const r = await runFile(file)
    results.push(r)
    const ok = r.code === 0 && r.total > 0 && r.passed + r.skipped === r.total
    // a file that registered no tests on purpose (e.g. no InfluxDB here) is reported, not failed
    const label = ok ? 'ok  ' : r.code === 0 && r.total === 0 ? 'skip' : 'FAIL'
    const secs = (r.ms / 1000).toFixed(1)
    process.stdout.write(`${label} ${relative(root, file)} (${r.passed}/${r.total}) ${secs} s\n`)
    if (!ok)
      process.stdout.write(
        r.output
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n') + '\n',
      )
  }
}
await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker))

let passed = 0
let failed = 0
let skipped = 0
for (const r of results) {
  passed += r.passed
  skipped += r.skipped
  failed += r.total - r.passed
  // a file that crashed or exited non-zero with no failing test still counts as one failure
  if (r.code !== 0 && r.total === r.passed) failed += 1
}
const total = passed + failed
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 || total === 0 ? 1 : 0)
