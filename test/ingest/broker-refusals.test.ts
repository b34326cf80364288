import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../_support/service.ts'
import { RefusalGuard } from '../../ingest/refusals.ts'
import {
  connect,
  credentials,
  devices,
  end,
  mqttUrl,
  oneDevice,
  until,
  type DeviceCredentials,
} from './_mqtt.ts'
import { withService } from './_service.ts'

const HOOK_SECRET = 'emqx-hook-secret-0123456789'

/** A service whose clock only moves when the test says so. */
async function withClock(env: Record<string, string>) {
  const clock = { now: Date.now() }
  const t = await startTestService(env, { now: () => clock.now })
  return { t, clock }
}

/** The refused rows of a device: [attempts, IP] in id order, once `n` rows (with `total` attempts) are there. */
async function refusedRows(t: TestService, id: number, n: number, total?: number) {
  const read = async () =>
    (
      await t.db.all(
        'SELECT attempts, ip FROM connect_logs WHERE device_int_id = ? AND connect_status = 2 ORDER BY id',
        [id],
      )
    ).map((r) => [Number(r.attempts), r.ip])
  const sum = (rows: unknown[][]) => rows.reduce((s, r) => s + Number(r[0]), 0)
  return until(read, (rows) => rows.length >= n && (total === undefined || sum(rows) >= total))
}

/** `n` CONNECTs with a wrong token, one after the other; returns their CONNACK return codes. */
async function refuse(t: TestService, d: DeviceCredentials, n: number): Promise<number[]> {
  const codes: number[] = []
  for (let i = 0; i < n; i++) {
    const r = await connect(mqttUrl(t), { ...credentials(d), password: 'wrong' })
    codes.push(r.error?.code ?? (r.connack ? 0 : -1))
    end(r.client)
  }
  return codes
}

/** Connects with the device's right token: asserts CONNACK 0, then ends the client. */
async function accepted(t: TestService, d: DeviceCredentials) {
  const ok = await connect(mqttUrl(t), credentials(d))
  assert.is(ok.connack?.returnCode, 0, ok.error?.message)
  end(ok.client)
}

// ---------------------------------------------------------------- log throttle
const logs = suite('broker: refused connections are logged once per client id and address')
let a: Awaited<ReturnType<typeof withClock>>
logs.before(async () => {
  a = await withClock({ MQTT_FLAP_REFUSALS: '0' })
})
logs.after(async () => a.t.close())

logs('50 refused CONNECTs within 10 s :: all CONNACK 5, one row with attempts 50', async () => {
  const d = await oneDevice(a.t)
  assert.equal(await refuse(a.t, d, 50), Array(50).fill(5))
  assert.equal(await refusedRows(a.t, d.id, 1, 50), [[50, '127.0.0.1']])
  const list = await a.t.admin.get(`/api/v1/devices/${d.id}/connect_logs`)
  assert.is(list.body.items.length, 1)
  assert.is(list.body.items[0].attempts, 50)
  assert.is(list.body.items[0].connectStatus, 2)
  assert.ok(list.body.items[0].updateAt, 'updateAt: the last refusal counted in')
})

logs('a refusal 10 s after the row :: a new row; the right token still connects', async () => {
  const d = await oneDevice(a.t)
  assert.equal(await refuse(a.t, d, 3), [5, 5, 5])
  a.clock.now += 9_999
  assert.equal(await refuse(a.t, d, 1), [5])
  a.clock.now += 1
  assert.equal(await refuse(a.t, d, 2), [5, 5])
  assert.equal(await refusedRows(a.t, d.id, 2, 6), [
    [4, '127.0.0.1'],
    [2, '127.0.0.1'],
  ])
  await accepted(a.t, d)
})

logs('two client ids from one address :: one row each', async () => {
  const {
    devices: [d1, d2],
  } = await devices(a.t, 2)
  await refuse(a.t, d1, 3)
  await refuse(a.t, d2, 2)
  assert.equal(await refusedRows(a.t, d1.id, 1, 3), [[3, '127.0.0.1']])
  assert.equal(await refusedRows(a.t, d2.id, 1, 2), [[2, '127.0.0.1']])
})

// ---------------------------------------------------------------- flapping
const flap = suite('broker: flapping protection')
let b: Awaited<ReturnType<typeof withClock>>
flap.before(async () => {
  b = await withClock({ EMQX_HOOK_SECRET: HOOK_SECRET })
})
flap.after(async () => b.t.close())

flap(
  '20 refusals in a minute, then the right token :: that client id refused for 5 minutes, unlogged; a second device from the same address connects at once',
  async () => {
    const {
      devices: [d, other],
    } = await devices(b.t, 2)
    assert.equal(await refuse(b.t, d, 20), Array(20).fill(5))
    assert.equal(await refusedRows(b.t, d.id, 1, 20), [[20, '127.0.0.1']])
    const banned = await connect(mqttUrl(b.t), credentials(d))
    assert.is(banned.error?.code, 5, 'the right token is refused during the ban')
    end(banned.client)
    // behind the same address (a NAT), another device is not locked out
    await accepted(b.t, other)
    b.clock.now += 299_000
    const still = await connect(mqttUrl(b.t), credentials(d))
    assert.is(still.error?.code, 5)
    end(still.client)
    assert.equal(await refusedRows(b.t, d.id, 1), [[20, '127.0.0.1']], 'banned attempts: no log')
    b.clock.now += 1_000
    await accepted(b.t, d)
  },
)

flap(
  '20 client ids naming no device from one address :: that address refuses unknown ids for 5 minutes; its devices still connect',
  async () => {
    const d = await oneDevice(b.t)
    for (let i = 0; i < 20; i++) {
      const r = await connect(mqttUrl(b.t), {
        clientId: `scanner-${i}`,
        username: 'u',
        password: 'p',
      })
      assert.is(r.error?.code, 5)
      end(r.client)
    }
    const unknown = await connect(mqttUrl(b.t), {
      clientId: 'scanner-new',
      username: 'u',
      password: 'p',
    })
    assert.is(unknown.error?.code, 5)
    end(unknown.client)
    const rows = await b.t.db.all(
      "SELECT device_id FROM connect_logs WHERE device_id = 'scanner-new'",
    )
    assert.is(rows.length, 0, 'a banned attempt is not logged')
    await accepted(b.t, d)
    b.clock.now += 300_000 // a clean slate for the next case
  },
)

flap('19 refusals, a minute apart from the 20th :: no ban', async () => {
  const d = await oneDevice(b.t)
  await refuse(b.t, d, 19)
  b.clock.now += 60_001
  await refuse(b.t, d, 1)
  await accepted(b.t, d)
  b.clock.now += 300_000 // a clean slate for the next case
})

flap('EMQX auth hook :: the same throttle and ban per client id', async () => {
  const {
    devices: [d, other],
  } = await devices(b.t, 2)
  const ask = (dev: DeviceCredentials, password: string, peerhost: string) =>
    b.t.anon.post<{ result: string }>(
      '/api/v1/emqx/auth',
      { clientid: dev.deviceID, username: dev.deviceUsername, password, peerhost },
      { 'x-hook-secret': HOOK_SECRET },
    )
  for (let i = 0; i < 20; i++)
    assert.equal((await ask(d, 'wrong', '10.7.7.7')).body, { result: 'deny' })
  assert.equal((await ask(d, d.token, '10.7.7.7')).body, { result: 'deny' }, 'banned')
  assert.equal(
    (await ask(d, d.token, '10.7.7.8')).body,
    { result: 'deny' },
    'the client id, anywhere',
  )
  assert.equal((await ask(other, other.token, '10.7.7.7')).body.result, 'allow', 'another device')
  assert.equal(await refusedRows(b.t, d.id, 1, 20), [[20, '10.7.7.7']])
  b.clock.now += 300_000
  assert.equal((await ask(d, d.token, '10.7.7.7')).body.result, 'allow', 'after the ban')
})

// ---------------------------------------------------------------- off
const off = suite('broker: refusal settings at 0')
let c: TestService
withService(off, (s) => (c = s), { MQTT_REFUSAL_LOG_SECONDS: '0', MQTT_FLAP_REFUSALS: '0' })

off('25 refusals :: 25 rows of 1, and the right token connects', async () => {
  const d = await oneDevice(c)
  assert.equal(await refuse(c, d, 25), Array(25).fill(5))
  assert.equal(await refusedRows(c, d.id, 25), Array(25).fill([1, '127.0.0.1']))
  await accepted(c, d)
})

// ---------------------------------------------------------------- the guard alone
const guard = suite('RefusalGuard')
const limits = { logSeconds: 10, flapRefusals: 3, flapWindowSeconds: 60, flapBanSeconds: 300 }

guard(
  'sliding window :: 3 refusals of a known client id within 60 s ban it; spread wider they do not',
  () => {
    let now = 0
    const g = new RefusalGuard(limits, () => now)
    g.refused('a', '1.1.1.1', true)
    now = 40_000
    g.refused('a', '1.1.1.1', true)
    now = 70_000 // the first is out of the window
    g.refused('a', '1.1.1.1', true)
    assert.not.ok(g.banned('a', '1.1.1.1', true))
    now = 90_000 // 40 s, 70 s, 90 s: three within a minute
    assert.is(g.refused('a', '1.1.1.1', true).banned, 'client id')
    assert.ok(g.banned('a', '1.1.1.1', true))
    assert.ok(g.banned('a', '9.9.9.9', true), 'from any address')
    assert.not.ok(g.banned('b', '1.1.1.1', true), 'another client id from the same address')
    assert.not.ok(g.banned('b', '1.1.1.1', false), 'the address itself is not banned')
    now = 390_000
    assert.not.ok(g.banned('a', '1.1.1.1', true))
  },
)

guard(
  'unknown client ids :: counted per address, whose ban holds only ids naming no device',
  () => {
    let now = 0
    const g = new RefusalGuard(limits, () => now)
    assert.is(g.refused('x1', '2.2.2.2', false).banned, undefined)
    g.refused('x2', '2.2.2.2', false)
    assert.is(g.refused('x3', '2.2.2.2', false).banned, 'address')
    assert.ok(g.banned('x4', '2.2.2.2', false), 'another unknown id from that address')
    assert.not.ok(g.banned('dev', '2.2.2.2', true), 'a device from that address')
    assert.not.ok(g.banned('x4', '2.2.2.3', false), 'another address')
    now = 300_000
    assert.not.ok(g.banned('x4', '2.2.2.2', false), 'the ban ends')
  },
)

guard('bounded :: at most `cap` client id/address pairs and addresses are kept', () => {
  const now = 0
  const g = new RefusalGuard({ ...limits, flapRefusals: 0 }, () => now, 100)
  for (let i = 0; i < 10_000; i++) g.refused(`c${i}`, `10.0.${i >> 8}.${i & 255}`, true)
  const sizes = g as unknown as Record<'rows' | 'recent' | 'bans', Map<string, unknown>>
  assert.is(sizes.rows.size, 100)
  assert.equal(
    g.refused('c9999', '10.0.39.15', true),
    { kind: 'fold', msgTime: 0, at: 0 },
    'recent ones kept',
  )
  assert.equal(
    g.refused('c0', '10.0.0.0', true),
    { kind: 'row', msgTime: 0, at: 0 },
    'oldest forgotten',
  )
  const flapping = new RefusalGuard(limits, () => now, 100)
  for (let i = 0; i < 10_000; i++)
    for (let k = 0; k < 3; k++) flapping.refused(`c${i}`, `10.1.${i >> 8}.${i & 255}`, i % 2 === 0)
  const f = flapping as unknown as typeof sizes
  assert.ok(f.recent.size <= 100 && f.bans.size === 100, `${f.recent.size} ${f.bans.size}`)
})

guard('log window 0 :: a row for every refusal', () => {
  const g = new RefusalGuard({ ...limits, logSeconds: 0 }, () => 5)
  assert.equal(g.refused('a', null, false), { kind: 'row', msgTime: 5, at: 5 })
  assert.equal(g.refused('a', null, false), { kind: 'row', msgTime: 5, at: 5 })
  assert.not.ok(g.banned('a', null, false))
})

logs.run()
flap.run()
off.run()
guard.run()
