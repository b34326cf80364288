import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import type { TestService } from '../_support/service.ts'
import { connectDevice, devices, fullTopic, until } from './_mqtt.ts'
import { withService } from './_service.ts'

const PUBLISHERS = 100
const PER_PUBLISHER = 200 // 20,000 QoS 0 messages in all

let t: TestService
const burst = suite('broker: burst and mass disconnect')
withService(burst, (s) => (t = s))

burst(
  `${PUBLISHERS} publishers × ${PER_PUBLISHER} QoS 0 then all disconnect at once :: service survives, HTTP answers, all offline`,
  async () => {
    const { devices: list } = await devices(t, PUBLISHERS)
    const clients: MqttClient[] = await Promise.all(list.map((d) => connectDevice(t, d)))
    const topics = await Promise.all(list.map((d) => fullTopic(t, d, 'no-stream')))
    const online = await until(
      async () => (await t.db.one('SELECT count(*) AS n FROM devices WHERE device_status = 1'))?.n,
      (n) => n === PUBLISHERS,
      10_000,
    )
    assert.is(online, PUBLISHERS)
    const payload = '{"temp":21.5}'
    // every client writes its messages as fast as it can; then all sockets close in the same tick
    await Promise.all(
      clients.map(
        (c, i) =>
          new Promise<void>((resolve) => {
            let left = PER_PUBLISHER
            for (let k = 0; k < PER_PUBLISHER; k++)
              c.publish(topics[i]!, payload, { qos: 0 }, () => --left === 0 && resolve())
          }),
      ),
    )
    // a QoS 0 callback fires once the packet is queued on the socket; on Node 24 a forced end discards what is still
    // queued there, so the messages leave the client first (the server may still be reading them)
    await until(
      async () => clients.every((c) => c.stream.writableLength === 0),
      (flushed) => flushed,
      10_000,
    )
    for (const c of clients) c.end(true)
    const health = await t.admin.get('/api/v1/products')
    assert.is(health.status, 200, 'HTTP answers during the aftermath')
    const offline = await until(
      async () => (await t.db.one('SELECT count(*) AS n FROM devices WHERE device_status = 1'))?.n,
      (n) => n === 0,
      15_000,
    )
    assert.is(offline, 0, 'every device offline after the mass disconnect')
    const ids = list.map((d) => d.id)
    const events = await until(
      async () =>
        Number(
          (
            await t.db.one(
              `SELECT count(*) AS n FROM events WHERE device_int_id IN (${ids.map(() => '?').join(',')})`,
              ids,
            )
          )?.n,
        ),
      (n) => n >= PUBLISHERS * PER_PUBLISHER,
      30_000,
      200,
    )
    assert.ok(events >= PUBLISHERS * PER_PUBLISHER * 0.99, `events logged: ${events}`)
    const logs = await t.db.one(
      `SELECT sum(connect_status = 1) AS up, sum(connect_status = 0) AS down FROM connect_logs WHERE device_int_id IN (${ids.map(() => '?').join(',')})`,
      ids,
    )
    assert.equal(logs, { up: PUBLISHERS, down: PUBLISHERS })
    assert.is((await t.admin.get('/api/v1/devices')).status, 200, 'HTTP still answers')
    // and the broker still serves
    const again = await connectDevice(t, list[0])
    assert.ok(again.connected)
    again.end(true)
  },
)

burst.run()
