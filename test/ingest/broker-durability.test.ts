import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { ADMIN_EMAIL, ADMIN_PASSWORD, Client, openSql } from '../_support/service.ts'
import { startChildService } from '../_support/child-service.ts'
import { loadConfig } from '../../src/kernel/config.ts'
import { startService } from '../../src/service.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'

/** Starts the service in a child process on `dir`; resolves with its URL and MQTT port. */
const startChild = (dir: string) =>
  startChildService('test/ingest/_service-child.ts', { DATA_DIR: dir })

const kill9 = suite('broker: kill -9 right after a PUBACK')

kill9(
  'every acknowledged QoS 1 uplink :: stored after a SIGKILL and a restart on the same DATA_DIR',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devicecloud-kill9-'))
    let child: ChildProcess | undefined
    try {
      const started = await startChild(dir)
      child = started.child
      const login = await new Client(started.url).post('/api/v1/login', {
        email: ADMIN_EMAIL,
        password: ADMIN_PASSWORD,
      })
      assert.is(login.status, 201, login.text)
      const admin = new Client(started.url, `Bearer ${login.body.token}`)
      const product = await newProduct(admin)
      const point = await mkPoint(admin, product.id, 'n')
      const stream = await mkStream(admin, product.productID, [point.id])
      const device = await newDevice(admin, mqttBody(product.productID))
      const tenantID = login.body.tenantID as string
      const topic = `/mqtt/${tenantID}/${product.productID}/${device.deviceID}/${stream.topic}`

      const client = mqtt.connect(`mqtt://127.0.0.1:${started.mqttPort}`, {
        clientId: device.deviceID,
        username: device.deviceUsername,
        password: device.token,
        protocolVersion: 4,
        reconnectPeriod: 0,
        connectTimeout: 5000,
      })
      await new Promise<void>((resolve, reject) => {
        client.once('connect', () => resolve())
        client.once('error', reject)
      })
      // a window of 8 uplinks in flight; SIGKILL in the PUBACK callback of the KILL_AT-th acknowledgement
      const KILL_AT = 150
      const base = Date.now() - 3600_000
      const acked: number[] = []
      await new Promise<void>((resolve) => {
        let sent = 0
        const send = () => {
          if (acked.length >= KILL_AT || sent >= KILL_AT + 50) return
          const i = sent++
          const payload = JSON.stringify({
            data_type: 'event',
            data: { n: { time: base + i, value: i } },
          })
          client.publish(topic, payload, { qos: 1 }, (err) => {
            if (err || acked.length >= KILL_AT) return
            acked.push(i)
            if (acked.length === KILL_AT) {
              child!.kill('SIGKILL')
              resolve()
            } else send()
          })
        }
        for (let k = 0; k < 8; k++) send()
        setTimeout(resolve, 30_000) // bounded
      })
      client.end(true)
      assert.is(acked.length, KILL_AT, 'the PUBACKs arrived before the kill')
      await new Promise((r) =>
        child!.exitCode !== null || child!.signalCode ? r(null) : child!.once('exit', r),
      )
      assert.is(child.signalCode, 'SIGKILL')

      const svc = await startService(
        loadConfig({
          DATA_DIR: dir,
          PORT: '0',
          HOST: '127.0.0.1',
          MQTT_PORT: '0',
          MQTT_WS_PORT: '0',
          ADMIN_EMAIL,
          ADMIN_PASSWORD,
          LOG_LEVEL: 'error',
        }),
      )
      try {
        const series = (
          await svc.deps.telemetry.readRaw({
            tenantID,
            deviceID: device.deviceID,
            dataPointIDs: ['n'],
            start: base,
            end: base + 10_000,
          })
        ).get('n')!
        const stored = new Set(series.value as number[])
        const lost = acked.filter((i) => !stored.has(i))
        assert.equal(lost, [], `acknowledged but lost: ${lost.length} of ${acked.length}`)
        const sql = await openSql(svc)
        const events = await sql.one('SELECT count(*) AS n FROM events WHERE device_id = ?', [
          device.deviceID,
        ])
        assert.ok(Number(events?.n) >= KILL_AT, 'every acknowledged uplink is also an event')
        const row = await sql.one('SELECT device_status FROM devices WHERE device_id = ?', [
          device.deviceID,
        ])
        sql.close()
        assert.is(row?.device_status, 0, 'offline after the restart')
      } finally {
        await svc.close()
      }
    } finally {
      if (child && child.exitCode === null && !child.signalCode) child.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

kill9.run()
