/**
 * Webhook targets checked at every delivery, over the real service, a real receiver and an injected resolver:
 * a name that resolves elsewhere after it was saved (DNS rebinding), IPv6 literals, WEBHOOK_ALLOW_PRIVATE=false,
 * redirects, a disabled or deleted webhook that stops being tried, and the rate-limited failure log.
 */
import * as assert from 'uvu/assert'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import type { LogDestination } from '../../../src/kernel/log.ts'
import type { WebhookCreated } from '../../../src/schemas/webhooks.ts'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Wire } from '../../_support/wire.ts'
import { devices, until } from '../../ingest/_mqtt.ts'
import { startReceiver } from './_receiver.ts'
import { queueCommand } from './_commands.ts'
import {
  assertUrlsRefused,
  commandHook,
  deliveries,
  firstAttempt,
  hookSuite,
  type Refusal,
} from './_webhooks.ts'

type Hook = Wire<typeof WebhookCreated>

/** The fields of a delivery failure's log line this test reads. */
interface LogLine {
  level: string
  msg: string
  component?: string
  webhookID?: number
  failures?: number
  host?: string
}

let offset = 0
/** What the injected resolver answers, by host name. */
const names = new Map<string, string[]>()
const resolve = async (host: string) => {
  const found = names.get(host)
  if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`)
  return found
}
const lines: string[] = []
const logs: LogDestination = { write: (line) => void lines.push(line) }
const port = () => new URL(w.rx.url).port

const { test, w } = hookSuite(
  'webhook targets',
  { LOG_LEVEL: 'info' },
  { now: () => Date.now() + offset, resolve, logDestination: logs },
)

const got = (path: string) => w.rx.got.filter((g) => g.path === path)
/** A port nothing listens on. */
const closedPort = async () => {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))
  const p = (s.address() as AddressInfo).port
  await new Promise<void>((r) => s.close(() => r()))
  return p
}

test('a name resolving to 127.0.0.1 at save, 169.254.169.254 at delivery :: refused, the receiver gets nothing', async () => {
  names.set('good.hooks.test', ['127.0.0.1'])
  names.set('rebind.hooks.test', ['127.0.0.1'])
  const good = await commandHook(w.c, `http://good.hooks.test:${port()}/good`)
  const rebind = await commandHook(w.c, `http://rebind.hooks.test:${port()}/rebind`)
  names.set('rebind.hooks.test', ['169.254.169.254'])
  await queueCommand(w.c, w.ds[0].deviceID)
  const ok = await until(
    () => deliveries(w.c, good.id),
    (l) => l.items[0]?.status === 'succeeded',
  )
  assert.is(ok.items[0]!.responseCode, 200)
  assert.is(got('/good').length, 1, 'a name is delivered to through the checked lookup')
  const refused = await firstAttempt(w.c, rebind.id)
  assert.equal(
    [refused.status, refused.responseCode, refused.lastError],
    [
      'pending',
      null,
      'refused: rebind.hooks.test resolves to 169.254.169.254 is a link-local address',
    ],
  )
  // one good address among bad ones is refused too, whatever their order
  names.set('rebind.hooks.test', ['127.0.0.1', '169.254.169.254'])
  offset += 10_500
  await until(
    () => deliveries(w.c, rebind.id),
    (l) => l.items[0]?.attempts === 2,
  )
  assert.is(got('/rebind').length, 0)
  await w.c.del(`/api/v1/webhooks?ids=${good.id},${rebind.id}`)
})

test('IPv6 literals :: a public one saves; link-local, unspecified and mapped link-local are 422', async () => {
  const r = await w.c.post<Hook>('/api/v1/webhooks', { url: 'http://[2001:db8::1]/x', enable: 0 })
  assert.is(r.status, 201, r.text)
  assert.is(r.body.url, 'http://[2001:db8::1]/x')
  const put = await w.c.put(`/api/v1/webhooks/${r.body.id}`, {
    url: 'https://[2001:db8::2]:8443/y',
    enable: 0,
  })
  assert.is(put.status, 200, put.text)
  await assertUrlsRefused(w.c, [
    'http://[fe80::1]/x',
    'http://[::]/x',
    'http://0.0.0.0:8080/x',
    'http://[::ffff:a9fe:a9fe]/x',
    'http://[1::2::3]/x',
  ])
  names.set('meta.hooks.test', ['10.0.0.1', '169.254.169.254'])
  const named = await w.c.post<Refusal>('/api/v1/webhooks', { url: 'http://meta.hooks.test/x' })
  assert.is(named.status, 422, named.text)
  assert.match(named.body.errors.url!, /169\.254\.169\.254 is a link-local address/)
  await w.c.del(`/api/v1/webhooks?ids=${r.body.id}`)
})

test('a redirect :: not followed, the attempt fails with HTTP 302', async () => {
  const h = await commandHook(w.c, `${w.rx.url}/moved`)
  w.rx.answers.push(302)
  await queueCommand(w.c, w.ds[1].deviceID)
  const d = await firstAttempt(w.c, h.id)
  assert.equal([d.status, d.responseCode, d.lastError], ['pending', 302, 'HTTP 302'])
  assert.is(got('/moved').length, 1)
  await w.c.del(`/api/v1/webhooks?ids=${h.id}`)
})

test('two webhooks, one failing then disabled :: it is no longer tried, the other keeps getting deliveries; deleted, its deliveries are gone', async () => {
  const down = await commandHook(w.c, `http://127.0.0.1:${await closedPort()}/down`)
  const up = await commandHook(w.c, `${w.rx.url}/up`)
  await queueCommand(w.c, w.ds[2].deviceID)
  const first = await firstAttempt(w.c, down.id)
  assert.is(first.status, 'pending')
  assert.match(first.lastError!, /ECONNREFUSED/)
  const disabled = await w.c.put(`/api/v1/webhooks/${down.id}`, {
    url: down.url,
    events: ['command.status'],
    enable: 0,
  })
  assert.is(disabled.status, 200, disabled.text)
  offset += 11_000 // past its first retry's time
  await queueCommand(w.c, w.ds[3].deviceID)
  await until(
    async () => got('/up').filter((g) => g.body.includes(w.ds[3].deviceID)).length,
    (n) => n === 1,
  )
  await new Promise((r) => setTimeout(r, 1200))
  const after = await deliveries(w.c, down.id)
  assert.equal(
    after.items.map((d) => [d.id, d.status, d.attempts]),
    [[first.id, 'pending', 1]],
    'no new delivery and no new attempt while disabled',
  )
  assert.is((await w.c.del(`/api/v1/webhooks?ids=${down.id}`)).status, 204)
  const left = await w.t.db.one(
    'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?',
    [down.id],
  )
  assert.is(Number(left!.n), 0)
  await w.c.del(`/api/v1/webhooks?ids=${up.id}`)
})

test('failing deliveries :: one warn line per webhook per minute with the count, never the secret, body or path', async () => {
  const h = await commandHook(w.c, `http://127.0.0.1:${await closedPort()}/secret-path-token`)
  const mine = () =>
    lines
      .map((l) => JSON.parse(l) as LogLine)
      .filter((l) => l.component === 'webhooks' && l.webhookID === h.id)
  for (const d of w.ds.slice(0, 3)) await queueCommand(w.c, d.deviceID)
  await until(
    () => deliveries(w.c, h.id),
    (l) => l.items.length === 3 && l.items.every((d) => d.attempts === 1),
  )
  assert.is(mine().length, 1, JSON.stringify(mine()))
  offset += 61_000
  await until(
    () => deliveries(w.c, h.id),
    (l) => l.items.every((d) => d.attempts === 2),
  )
  const logged = mine()
  assert.is(logged.length, 2, JSON.stringify(logged))
  assert.is(logged[0]!.level, 'warn')
  assert.equal(
    [logged[0]!.failures, logged[0]!.host, logged[0]!.msg],
    [1, new URL(h.url).host, 'webhook delivery failed, will retry'],
  )
  assert.is(logged[1]!.failures, 3, 'the two unlogged failures and this one')
  const text = JSON.stringify(logged)
  for (const hidden of [h.secret, 'secret-path-token', '"data"', 'commandStatus'])
    assert.not.ok(text.includes(hidden), hidden)
  await w.c.del(`/api/v1/webhooks?ids=${h.id}`)
})

test.run()

let p: TestService
const closed = serviceSuite(
  'WEBHOOK_ALLOW_PRIVATE=false',
  (svc) => (p = svc),
  { WEBHOOK_ALLOW_PRIVATE: 'false' },
  { resolve },
)

closed('loopback and private targets :: 422 at save, refused at delivery', async () => {
  for (const url of ['http://127.0.0.1:9/x', 'http://[::1]/x', 'http://10.1.2.3/x']) {
    const r = await p.admin.post<Refusal>('/api/v1/webhooks', { url })
    assert.is(r.status, 422, `${url}: ${r.text}`)
    assert.match(r.body.errors.url!, /WEBHOOK_ALLOW_PRIVATE/)
  }
  names.set('inside.hooks.test', ['192.168.1.10'])
  const named = await p.admin.post('/api/v1/webhooks', { url: 'http://inside.hooks.test/x' })
  assert.is(named.status, 422, named.text)
  names.set('flip.hooks.test', ['203.0.113.7'])
  const rx2 = await startReceiver()
  const h = await commandHook(p.admin, `http://flip.hooks.test:${new URL(rx2.url).port}/flip`)
  names.set('flip.hooks.test', ['127.0.0.1'])
  const d = (await devices(p, 1)).devices[0]
  const r = await p.admin.post('/api/v1/device_publish', {
    deviceID: d.deviceID,
    payload: 'x',
    ttl: 600,
  })
  assert.is(r.status, 201, r.text)
  const refused = await firstAttempt(p.admin, h.id)
  assert.match(
    refused.lastError!,
    /^refused: flip\.hooks\.test resolves to 127\.0\.0\.1 is a loopback/,
  )
  assert.is(rx2.got.length, 0)
  await rx2.close()
})

closed.run()
