import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { openSql, testConfig } from '../_support/service.ts'
import { startChildService } from '../_support/child-service.ts'
import { startService } from '../../src/service.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'
import { adminLogin } from './_service.ts'

/** Starts the service in a child process on `dir`; resolves with its URL and MQTT port. */
const startChild = (dir: string) =>
  startChildService('test/ingest/_service-child.ts', { DATA_DIR: dir })

const kill9 = suite('broker: kill -9 right after a PUBACK')

kill9(
  '2,000 acknowledged QoS 1 uplinks of 10 devices :: every value and event stored after a SIGKILL and a restart',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devicecloud-kill9-'))
    let child: ChildProcess | undefined
    try {
      const started = await startChild(dir)
      child = started.child
      const { login, admin } = await adminLogin(started.url)
      const product = await newProduct(admin)
      const points = await Promise.all(['a', 'b', 'c'].map((id) => mkPoint(admin, product.id, id)))
      const stream = await mkStream(
        admin,
        product.productID,
        points.map((p) => p.id),
      )
      const tenantID = login.body.tenantID as string
      const DEVICES = 10
      const devices = await Promise.all(
        Array.from({ length: DEVICES }, () => newDevice(admin, mqttBody(product.productID))),
      )
      const clients = await Promise.all(
        devices.map(async (device) => {
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
          return client
        }),
      )
      // 10 devices with 10 uplinks in flight each, 3 values an uplink; SIGKILL in the PUBACK callback of the
      // KILL_AT-th acknowledgement (of all devices together)
      const KILL_AT = 2000
      const base = Date.now() - 3600_000
      const values = (i: number) => ({ a: i, b: i * 0.25, c: -i })
      const acked = new Map<string, number[]>(devices.map((d) => [d.deviceID, []]))
      let total = 0
      await new Promise<void>((resolve) => {
        devices.forEach((device, k) => {
          const topic = `/mqtt/${tenantID}/${product.productID}/${device.deviceID}/${stream.topic}`
          const mine = acked.get(device.deviceID)!
          let sent = 0
          const send = () => {
            if (total >= KILL_AT) return
            const i = sent++
            const v = values(i)
            const payload = JSON.stringify({
              data_type: 'event',
              data: Object.fromEntries(
                Object.entries(v).map(([id, value]) => [id, { time: base + i, value }]),
              ),
            })
            clients[k]!.publish(topic, payload, { qos: 1 }, (err) => {
              if (err || total >= KILL_AT) return
              mine.push(i)
              if (++total === KILL_AT) {
                child!.kill('SIGKILL')
                resolve()
              } else send()
            })
          }
          for (let w = 0; w < 10; w++) send()
        })
        setTimeout(resolve, 60_000) // bounded
      })
      for (const c of clients) c.end(true)
      assert.is(total, KILL_AT, 'the PUBACKs arrived before the kill')
      await new Promise((r) =>
        child!.exitCode !== null || child!.signalCode ? r(null) : child!.once('exit', r),
      )
      assert.is(child.signalCode, 'SIGKILL')

      const svc = await startService(testConfig(dir))
      try {
        const sql = await openSql(svc)
        let checked = 0
        for (const device of devices) {
          const mine = acked.get(device.deviceID)!
          const series = await svc.deps.telemetry.readRaw({
            tenantID,
            deviceID: device.deviceID,
            dataPointIDs: ['a', 'b', 'c'],
            start: base,
            end: base + 10_000,
          })
          for (const id of ['a', 'b', 'c'] as const) {
            const s = series.get(id)!
            const stored = new Map(s.time.map((t, j) => [t, s.value[j]]))
            for (const i of mine) {
              assert.is(
                stored.get(base + i),
                values(i)[id],
                `${device.deviceID} ${id} of uplink ${i}`,
              )
              checked++
            }
          }
          const events = await sql.all('SELECT payload FROM events WHERE device_id = ?', [
            device.deviceID,
          ])
          const logged = new Set(events.map((e) => JSON.parse(String(e.payload)).data.a.value))
          const missing = mine.filter((i) => !logged.has(i))
          assert.equal(missing, [], `${device.deviceID}: acknowledged uplinks without an event`)
          assert.is(
            logged.size,
            events.length,
            `${device.deviceID}: an uplink's event stored twice`,
          )
        }
        assert.is(checked, 3 * KILL_AT, 'every value of every acknowledged uplink was checked')
        const offline = await sql.one(
          'SELECT count(*) AS n FROM devices WHERE device_status = 0 AND product_int_id = ?',
          [product.id],
        )
        void sql.close()
        assert.is(Number(offline?.n), DEVICES, 'offline after the restart')
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
