/**
 * A device no one here wrote: Eclipse paho-mqtt (Python, 1.x or 2.x) over MQTT 3.1.1. Runs with the first of
 * $PAHO_PYTHON, python3, /usr/bin/python3 that imports paho; without one the file registers no test (skipped).
 */
import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestService } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'
import type { Event } from '../../src/schemas/logs.ts'
import { DeviceDirectory } from '../../ingest/identity.ts'
import { uniq } from '../src/routes/devices-helpers.ts'
import { streamDevice } from './_mqtt.ts'
import { withService } from './_service.ts'

const SCRIPT = join(import.meta.dirname, '_paho_device.py')
const STATE_SCRIPT = join(import.meta.dirname, '_paho_state.py')

const python = [process.env.PAHO_PYTHON, 'python3', '/usr/bin/python3'].find(
  (p) => p && spawnSync(p, ['-c', 'import paho.mqtt.client'], { stdio: 'ignore' }).status === 0,
)

/** A JSON line the paho device prints: the step it reached and what it saw there. */
type PahoLine = Record<string, unknown>

/** Runs a paho device script; calls `onLine` with each JSON line it prints; resolves with all of them on exit. */
function runDevice(
  args: string[],
  onLine: (line: PahoLine) => void,
  script = SCRIPT,
): Promise<PahoLine[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(python!, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: PahoLine[] = []
    let stderr = ''
    const timer = setTimeout(() => child.kill(), 30_000)
    child.stderr.on('data', (d) => (stderr += d))
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as PahoLine
      lines.push(line)
      onLine(line)
    })
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve(lines)
      else reject(new Error(`paho device exited ${code}: ${stderr}`))
    })
  })
}

let t: TestService
const paho = suite('broker: a paho-mqtt device (MQTT 3.1.1)')
withService(paho, (s) => (t = s))

paho(
  'inbox command, a refused QoS 1 publish, then an allowed one :: inbox, PUBACK, connected, no resend',
  async () => {
    const { stream, device: d } = await streamDevice(t)
    const p = await t.admin.post('/api/v1/policies', {
      name: uniq('pol'),
      topic: stream.topic,
      access: 0,
      allow: 0,
    })
    await t.admin.post(`/api/v1/policies/${p.body.id}/devices`, { devicesIntID: [d.id] })
    const device = (await new DeviceDirectory(t.svc.deps.meta.ingest, t.svc.deps.bus).byId(d.id))!
    let acked: Promise<boolean> | undefined
    const lines = await runDevice(
      [
        '127.0.0.1',
        String(t.svc.deps.broker.port),
        d.deviceID,
        d.deviceUsername,
        d.token,
        stream.topic,
      ],
      (line) => {
        if (line.step === 'subscribed')
          acked = t.svc.deps.broker.publish(device, 'inbox', Buffer.from('{"cmd":"on"}'))
      },
    )
    assert.equal(lines, [
      { step: 'subscribed', granted: [1] },
      { step: 'message', received: ['inbox', '{"cmd":"on"}'] },
      { step: 'refused', acked: true, connected: true },
      { step: 'allowed', acked: true, disconnects: 0 },
    ])
    assert.is(await acked, true, 'the command was acknowledged')
    const events = (
      await t.admin.get<Page<Wire<typeof Event>>>(
        `/api/v1/device_events?deviceID=${d.deviceID}&_sort=id&_order=asc`,
      )
    ).body.items.map((e) => [e.topic, e.reason])
    assert.equal(events, [
      [stream.topic, 'not authorized'],
      ['paho/ok', 'no data stream for topic paho/ok'],
    ])
  },
)

paho(
  'device state :: the pending delta pushed on subscribing, reported back, the document on state/get',
  async () => {
    const { device: d } = await streamDevice(t)
    const patched = await t.admin.patch(`/api/v1/devices/${d.id}/state`, { desired: { speed: 4 } })
    assert.is(patched.status, 200, patched.text)
    const lines = await runDevice(
      ['127.0.0.1', String(t.svc.deps.broker.port), d.deviceID, d.deviceUsername, d.token],
      () => {},
      STATE_SCRIPT,
    )
    assert.equal(lines[0], {
      step: 'delta',
      message: { desired: { speed: 4 }, delta: { speed: 4 }, version: 1, desiredVersion: 1 },
    })
    assert.equal(lines[1], { step: 'reported', acked: true })
    const doc = lines[2]!.message as Record<string, unknown>
    assert.equal([doc.clientToken, doc.reported, doc.delta], ['paho-1', { speed: 4 }, {}])
    const stored = (await t.admin.get(`/api/v1/devices/${d.id}/state`)).body
    assert.equal([stored.reported, stored.delta, stored.version], [{ speed: 4 }, {}, 2])
  },
)

if (python) paho.run()
else if (process.env.CI) {
  // CI installs python3-paho-mqtt (.ci/run): there, a missing paho is a failure, not a skip
  const missing = suite('paho-mqtt in CI')
  missing('paho-mqtt :: importable by python3', () => {
    assert.unreachable('python3 cannot import paho.mqtt.client')
  })
  missing.run()
}
