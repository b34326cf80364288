import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Client } from 'aedes'
import { deviceTopic } from '../../src/kernel/topics.ts'
import { SubscriptionForms } from '../../ingest/broker/forms.ts'

const device = { cloudProtocol: 1, tenantID: 'T1', productID: 'P1', deviceID: 'D1' }
const P = '/mqtt/T1/P1/D1/'

const place = suite('deviceTopic: a topic or filter as a device gave it')

const PLACED: Array<[string, ReturnType<typeof deviceTopic>]> = [
  ['telemetry', { full: `${P}telemetry`, relative: 'telemetry', absolute: false }],
  [`${P}telemetry`, { full: `${P}telemetry`, relative: 'telemetry', absolute: true }],
  ['#', { full: `${P}#`, relative: '#', absolute: false }],
  [`${P}a/+`, { full: `${P}a/+`, relative: 'a/+', absolute: true }],
  ['+/x', { full: `${P}+/x`, relative: '+/x', absolute: false }],
  ['/data/t1', { full: `${P}/data/t1`, relative: '/data/t1', absolute: false }],
  [
    'mqtt/T1/P1/D1/x',
    { full: `${P}mqtt/T1/P1/D1/x`, relative: 'mqtt/T1/P1/D1/x', absolute: false },
  ],
  ['/mqtt/T1/P1/D2/x', undefined], // another device's full topic
  ['/coap/T1/P1/D1/x', undefined], // another protocol is another mountpoint
  ['/mqtt/T1/P1/D1', undefined], // the prefix without its slash
  [P, undefined], // the prefix itself
  ['/mqtt/#', undefined],
  ['/#', undefined],
  ['/+/T1/P1/D1/x', undefined],
  ['$SYS/x', undefined],
  ['$share/g/x', undefined],
]
for (const [given, expected] of PLACED) {
  place(`${given} :: ${expected ? expected.full : 'outside'}`, () =>
    assert.equal(deviceTopic(device, given), expected),
  )
}

const forms = suite('SubscriptionForms')
const client = (id = 'D1', clean = true) => ({ id, clean }) as unknown as Client
const rel = (topic: string) => deviceTopic(device, topic)!
const full = (topic: string) => deviceTopic(device, P + topic)!

/** The forms of one clean session, its CONNACK sent. */
function connacked() {
  const f = new SubscriptionForms()
  const c = client()
  f.began(c, true)
  f.connacked(c)
  return { f, c }
}

forms('no subscription of the device :: a message goes as it is', () => {
  const { f, c } = connacked()
  assert.is(f.formsFor(c, `${P}inbox`), undefined)
})

forms('relative and full subscriptions :: their QoS per form, the filter at the highest', () => {
  const { f, c } = connacked()
  assert.is(f.subscribed(c, rel('inbox'), 0), 0)
  assert.is(f.subscribed(c, full('inbox'), 1), 1)
  assert.equal(f.formsFor(c, `${P}inbox`), { relative: 0, full: 1 })
  assert.is(f.subscribed(c, rel('#'), 1), 1)
  assert.equal(f.formsFor(c, `${P}inbox`), { relative: 1, full: 1 }, 'the wildcard matches too')
  assert.equal(f.formsFor(c, `${P}other`), { relative: 1, full: undefined })
})

forms(
  "the service's subscription :: relative until the device subscribes to the filter itself",
  () => {
    const { f, c } = connacked()
    f.serviceSubscribed(c, `${P}inbox`, 1)
    assert.equal(f.formsFor(c, `${P}inbox`), { relative: 1, full: undefined })
    f.subscribed(c, full('inbox'), 0)
    assert.equal(f.formsFor(c, `${P}inbox`), { relative: undefined, full: 0 })
    f.serviceSubscribed(c, `${P}inbox`, 1)
    assert.equal(
      f.formsFor(c, `${P}inbox`),
      { relative: undefined, full: 0 },
      'the device keeps it',
    )
    assert.is(f.unsubscribed(c, full('inbox')), `${P}inbox`)
    assert.is(f.formsFor(c, `${P}inbox`), undefined)
  },
)

forms('unsubscribe :: the full filter only once no form is left on it', () => {
  const { f, c } = connacked()
  f.subscribed(c, rel('inbox'), 1)
  f.subscribed(c, full('inbox'), 1)
  assert.is(
    f.unsubscribed(c, full('inbox')),
    'inbox',
    'names no subscription: the relative one stays',
  )
  assert.equal(f.formsFor(c, `${P}inbox`), { relative: 1, full: undefined })
  assert.is(f.unsubscribed(c, rel('inbox')), `${P}inbox`)
  assert.is(f.formsFor(c, `${P}inbox`), undefined)
  assert.is(f.unsubscribed(c, rel('never')), `${P}never`)
})

forms('a resumed session :: keeps the forms of the filters aedes restored, drops the rest', () => {
  const f = new SubscriptionForms()
  const first = client('D1', false)
  f.began(first, true)
  f.connacked(first)
  f.subscribed(first, rel('a'), 1)
  f.subscribed(first, rel('b'), 1)
  const second = client('D1', false)
  f.began(second, false)
  assert.ok(f.connecting(second))
  f.restoring(second, `${P}a`)
  f.connacked(second)
  assert.not.ok(f.connecting(second))
  assert.equal(f.formsFor(second, `${P}a`), { relative: 1, full: undefined })
  assert.is(f.formsFor(second, `${P}b`), undefined)
  const clean = client('D1', true)
  f.began(clean, true)
  assert.is(f.formsFor(clean, `${P}a`), undefined, 'a clean start forgets them')
})

place.run()
forms.run()
