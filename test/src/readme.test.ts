/**
 * The documents' shell blocks run as pasted: the README's "Connect your first device" (five steps: start the
 * service, log in, a product, a device, one message) and, in the same shell, the command example of
 * docs/commands.md (the device receives a command and answers it). Only the environment differs from a user's: a free PORT, broker ports chosen by the
 * service (the blocks read them from the connection answer), HOST 127.0.0.1. Needs bash, curl, jq and Mosquitto's
 * clients (.ci/run installs them).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { freePort, processEnv } from '../_support/ports.ts'
import type { Page, Wire } from '../_support/wire.ts'
import type { LatestValues } from '../../src/schemas/ingest.ts'
import type { ControlLog } from '../../src/schemas/logs.ts'
import { join } from 'node:path'

const root = join(import.meta.dirname, '../..')
const read = (doc: string) => readFileSync(join(root, doc), 'utf8')

/** The first ```sh block after `marker` in a document (README.md, docs/commands.md). */
function blockAfter(doc: string, marker: string): string {
  const text = read(doc)
  const at = text.indexOf(marker)
  assert.ok(at >= 0, `${doc} has no "${marker}"`)
  const m = /```sh\n([\s\S]*?)\n```/.exec(text.slice(at))
  assert.ok(m, `no sh block after "${marker}" in ${doc}`)
  return m[1]!
}

/** Polls `fn` until it answers something other than undefined, or `ms` pass. */
async function until<T>(fn: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn().catch(() => undefined)
    if (v !== undefined || Date.now() > end) return v
    await new Promise((r) => setTimeout(r, 100))
  }
}

const readme = suite('README blocks')

readme(
  'the five steps, then the command example, pasted into bash :: the value is stored and the command ends succeeded with the code',
  async () => {
    for (const tool of ['curl', 'jq', 'mosquitto_pub', 'mosquitto_sub'])
      assert.is(spawnSync('sh', ['-c', `command -v ${tool}`]).status, 0, `${tool} is not installed`)
    const five = blockAfter('README.md', '## Connect your first device')
    const command = blockAfter('docs/commands.md', 'A device receiving and answering a command')
    const port = await freePort()
    const script = [
      'set -eo pipefail',
      five,
      command,
      'echo "README-TEST $DATA_DIR $TOKEN $D $TASK $CMD_FILE"',
    ].join('\n')
    // its own process group: the service the block starts in the background is stopped with it
    const bash = spawn('bash', ['-c', script], {
      cwd: root,
      env: { ...processEnv(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let out = ''
    bash.stdout.on('data', (d) => (out += d))
    bash.stderr.on('data', (d) => (out += d))
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(-1), 120_000)
      bash.on('exit', (c) => (clearTimeout(timer), resolve(c)))
    })
    const ids = /README-TEST (\S+) (\S+) (\d+) (\S+) (\S+)/.exec(out)
    try {
      assert.is(code, 0, out)
      assert.ok(ids, out)
      const [, , token, device, task] = ids
      const api = async <T>(path: string) => {
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/${path}`, {
          headers: { authorization: `Bearer ${token}` },
        })
        return r.json() as Promise<T>
      }
      // step 5 printed the device's latest values: temp holds the example message's value
      const latest = await api<Wire<typeof LatestValues>>(`devices/${device}/latest`)
      const temp = latest.find((x) => x.dataPointID === 'temp')
      assert.type(temp?.value, 'number')
      assert.ok(temp?.time)
      assert.ok(out.includes(`"value": ${temp?.value}`), out)
      // the command example's last line printed the outcome, and the control log holds it
      assert.ok(out.includes('{"commandStatus":"succeeded","responseCode":200}'), out)
      const log = await until(async () => {
        const r = await api<Page<Wire<typeof ControlLog>>>(`device_control_logs?taskID=${task}`)
        return r.items[0]?.commandStatus === 'succeeded' ? r.items[0] : undefined
      }, 5_000)
      assert.equal([log?.commandStatus, log?.responseCode], ['succeeded', 200])
      assert.equal(JSON.parse(log?.responsePayload ?? '').result, { task_id: task, code: 200 })
    } finally {
      try {
        process.kill(-bash.pid!, 'SIGTERM')
      } catch {
        // the group is gone already
      }
      // the service has stopped once its port refuses
      await until(
        () =>
          fetch(`http://127.0.0.1:${port}/healthz`).then(
            () => undefined,
            () => true,
          ),
        10_000,
      )
      if (ids) for (const path of [ids[1]!, ids[5]!]) rmSync(path, { recursive: true, force: true })
    }
  },
)

readme.run()
