import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { mkdtempSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '../..')

/** Starts `npm start`'s entry point as its own process; resolves with its output and a way to stop it. */
function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const until = async (re: RegExp, ms = 20_000) => {
    const end = Date.now() + ms
    while (!re.test(output) && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
    return re.exec(output)
  }
  return { child, exited, until, output: () => output }
}

const main = suite('process')

main('fresh data dir :: serves, creates schema and first admin, SIGTERM exits 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-main-'))
  const p = start({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: join(dir, 'data'),
    MQTT_PORT: '0',
    MQTT_WS_PORT: '0',
  })
  const m = await p.until(/API on (http:\/\/[\d.:]+)/)
  assert.ok(m, p.output())
  // stdout is a pipe: the lines after the first may arrive in a later chunk
  assert.ok(await p.until(/generated password, shown once: \S{16}/), p.output())
  const health = await fetch(`${m![1]}/health`)
  assert.is(health.status, 200)
  assert.ok(existsSync(join(dir, 'data', 'devicecloud.db')))
  p.child.kill('SIGTERM')
  assert.is(await p.exited, 0)
  rmSync(dir, { recursive: true, force: true })
})

main('bad settings :: exit 1 naming every bad key', async () => {
  const p = start({ PORT: 'eighty', TIMEZONE: 'Nowhere/City' })
  assert.is(await p.exited, 1)
  assert.match(p.output(), /PORT/)
  assert.match(p.output(), /TIMEZONE/)
})

main.run()
