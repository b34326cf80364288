/**
 * A dead database worker ends the process (src/kernel/crash.ts): a real service in a child process whose
 * telemetry worker thread is ended exits with 70 and says why; the handler runs once and never waits long.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXIT_WORKER_DIED, exitOnWorkerDeath } from '../../src/kernel/crash.ts'

const test = suite('a dead database worker')

test('a service whose telemetry worker dies :: exits with 70 and logs why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-crash-'))
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '_worker-death-child.ts')],
      { env: { ...process.env, DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    assert.match(out, /ready/)
    assert.is(code, EXIT_WORKER_DIED, out)
    assert.match(out, /a database worker died .*exiting with 70 for a restart/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the handler :: runs once; exits after closing, or after 2 s when the close hangs', async () => {
  const exits: number[] = []
  const lines: string[] = []
  let closed = 0
  const onDeath = exitOnWorkerDeath(
    () => ({ close: async () => void closed++ }),
    (code) => exits.push(code),
    (line) => lines.push(line),
  )
  onDeath(new Error('db-writer worker exited (1)'))
  onDeath(new Error('again'))
  await new Promise((r) => setTimeout(r, 20))
  assert.equal(exits, [70])
  assert.is(closed, 1)
  assert.is(lines.length, 1)
  assert.match(lines[0]!, /db-writer worker exited \(1\)/)

  const hung: number[] = []
  const started = Date.now()
  exitOnWorkerDeath(
    () => ({ close: () => new Promise<void>(() => {}) }),
    (code) => hung.push(code),
    () => {},
  )(new Error('x'))
  await new Promise((r) => setTimeout(r, 2300))
  assert.equal(hung, [70])
  assert.ok(Date.now() - started >= 2000)

  const early: number[] = []
  exitOnWorkerDeath(
    () => undefined,
    (code) => early.push(code),
    () => {},
  )(new Error('during start-up'))
  await new Promise((r) => setTimeout(r, 20))
  assert.equal(early, [70], 'before the service is up: exits at once')
})

test.run()
