/**
 * A command that times out is logged at `info` (component commands, its taskID and deviceID, never its payload).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import type { LogDestination } from '../../../src/kernel/log.ts'
import type { PublishAnswer } from '../../../src/schemas/commands.ts'
import type { ControlLog } from '../../../src/schemas/logs.ts'
import { startTestService, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { connectDevice, devices, end, sleep, until } from '../../ingest/_mqtt.ts'

/** The fields of a log line this test reads. */
interface LogLine {
  level: string
  msg: string
  component?: string
  taskID?: string
  deviceID?: string
}

const test = suite('commands: time-out log')
const lines: string[] = []
const destination: LogDestination = { write: (line) => void lines.push(line) }
let t: TestService
const clients: MqttClient[] = []

test.before(async () => {
  t = await startTestService(
    { LOG_LEVEL: 'info', COMMAND_TIMEOUT: '1' },
    { logDestination: destination },
  )
})
test.after(async () => {
  for (const m of clients) end(m)
  await t.close()
})

test('a command without PUBACK within its timeout :: one info line with taskID and deviceID, no payload', async () => {
  const { devices: ds } = await devices(t, 2)
  const ms = [await connectDevice(t, ds[0]), await connectDevice(t, ds[1])]
  clients.push(...ms)
  // the PUBACK follows handleMessage's callback: never called, never acknowledged
  for (const m of ms) m.handleMessage = () => {}
  await sleep(150)
  const tasks: string[] = []
  for (const d of ds) {
    const r = await t.admin.post<Wire<typeof PublishAnswer>>('/api/v1/device_publish', {
      deviceID: d.deviceID,
      payload: 'secret-payload-1',
    })
    assert.is(r.status, 201, r.text)
    tasks.push(r.body.taskID)
  }
  const timedOut = () =>
    lines.map((l) => JSON.parse(l) as LogLine).filter((r) => r.msg === 'command timed out')
  await until(
    () => Promise.resolve(timedOut()),
    (rs) => rs.length >= 2,
    8000,
  )
  const rs = timedOut()
  assert.equal(
    rs.map((r) => [r.level, r.component, r.taskID, r.deviceID]).sort(),
    tasks.map((taskID, i) => ['info', 'commands', taskID, ds[i]!.deviceID]).sort(),
  )
  assert.not.ok(lines.some((l) => l.includes('secret-payload-1')))
  const logs = await t.admin.get<Page<Wire<typeof ControlLog>>>(
    `/api/v1/device_control_logs?taskID=${tasks[0]}`,
  )
  assert.is(logs.body.items[0]!.commandStatus, 'timed_out')
})

test.run()
