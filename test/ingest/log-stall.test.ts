/**
 * A log reader that stops reading never stops the service (src/kernel/log.ts LineSink): the service runs in a child
 * process whose stdout pipe nobody reads after its first line, logging at info; 1,000 devices connect and publish
 * QoS 1 and every one gets its CONNACK and PUBACK. Lines beyond the bounded buffer are dropped and counted, and when
 * the reader reads again one line says how many were dropped.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt, { type MqttClient } from 'mqtt'
import { Client } from '../_support/service.ts'
import { startChildService, type ChildService } from '../_support/child-service.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../src/routes/devices-helpers.ts'
import { sleep } from './_mqtt.ts'
import { adminLogin } from './_service.ts'

const test = suite('logs: a stalled reader')
const DEVICES = 1000

test(`stdout unread, ${DEVICES} devices connect and publish QoS 1 :: every CONNACK and PUBACK, drops counted`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dc-log-stall-'))
  let c: ChildService<{ url: string; mqttPort: number }> | undefined
  const clients: MqttClient[] = []
  try {
    const svc = await startChildService<{ url: string; mqttPort: number }>(
      'test/ingest/_service-child.ts',
      {
        DATA_DIR: dir,
        LOG_LEVEL: 'debug',
      },
    )
    c = svc
    const stdout = svc.child.stdout!
    // nobody reads stdout from here on: the pipe fills (64 KiB) and stays full
    stdout.pause()
    let late = ''
    const { admin } = await adminLogin(svc.url)
    const product = await newProduct(admin)
    const list: NewDevice[] = []
    for (let i = 0; i < DEVICES; i += 20)
      list.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(20, DEVICES - i) }, () =>
            newDevice(admin, mqttBody(product.productID)),
          ),
        )),
      )
    assert.ok(list.length === DEVICES)
    // every access line above went to the unread pipe: the service answers all the same
    let connacks = 0
    let pubacks = 0
    const started = Date.now()
    await Promise.all(
      list.map(
        (d, i) =>
          new Promise<void>((resolve) => {
            const m = mqtt.connect(`mqtt://127.0.0.1:${svc.mqttPort}`, {
              clientId: d.deviceID,
              username: d.deviceUsername,
              password: d.token,
              reconnectPeriod: 0,
              connectTimeout: 30_000,
            })
            clients.push(m)
            m.on('error', () => resolve())
            m.once('connect', () => {
              connacks++
              const topic = `/mqtt/${d.tenantID}/${product.productID}/${d.deviceID}/up-${i}`
              m.publish(topic, '{"x":1}', { qos: 1 }, (err) => {
                if (!err) pubacks++
                resolve()
              })
            })
          }),
      ),
    )
    const ms = Date.now() - started
    assert.is(connacks, DEVICES, `CONNACKs with stdout unread (${ms} ms)`)
    assert.is(pubacks, DEVICES, `PUBACKs with stdout unread (${ms} ms)`)
    // more access lines than the sink holds (1 MiB): the rest are dropped, counted, and the service answers
    for (let i = 0; i < 6000; i += 50)
      await Promise.all(Array.from({ length: 50 }, () => admin.get('/healthz')))
    const metrics = await new Client(svc.url).get('/metrics')
    const dropped = Number(
      /devicecloud_log_lines_dropped_total (\d+)/.exec(metrics.text)?.[1] ?? 'NaN',
    )
    assert.ok(dropped > 0, `lines dropped and counted: ${dropped}`)
    // the reader reads again: the lines waiting arrive, then one line says how many were dropped
    stdout.on('data', (d: Buffer) => (late += String(d)))
    stdout.resume()
    for (let i = 0; i < 100 && !/log line\(s\) dropped/.test(late); i++) {
      await new Promise((r) => setTimeout(r, 100))
      await new Client(svc.url).get('/healthz') // a line, so the sink has something to write
    }
    const line = late.split('\n').find((l) => l.includes('log line(s) dropped'))
    assert.ok(line, 'a line says how many lines were dropped')
    assert.ok(JSON.parse(line).dropped > 0)
  } finally {
    for (const m of clients) m.end(true)
    c?.child.kill('SIGKILL')
    await sleep(100)
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
