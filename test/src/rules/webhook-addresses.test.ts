import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { addressKind, addressProblem, webhookUrlProblem } from '../../../src/rules/webhooks.ts'

const rules = suite('webhook target addresses')

rules('addressKind :: v4, v6, v4-mapped and v4-compatible forms', () => {
  const cases: [string, ReturnType<typeof addressKind>][] = [
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['[fe80::1]', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'private'],
    ['127.9.9.9', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['::1', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['169.255.0.1', 'public'],
    ['8.8.8.8', 'public'],
    ['2001:db8::1', 'public'],
    ['fec0::1', 'public'],
    ['2606:4700::1111', 'public'],
    ['example.com', undefined],
  ]
  for (const [ip, kind] of cases) assert.is(addressKind(ip), kind, ip)
})

rules('addressProblem :: private allowed only when told; link-local and unspecified never', () => {
  assert.is(addressProblem('127.0.0.1', true), undefined)
  assert.match(addressProblem('127.0.0.1', false)!, /WEBHOOK_ALLOW_PRIVATE/)
  assert.match(addressProblem('169.254.169.254', true)!, /link-local/)
  assert.match(addressProblem('::', true)!, /unspecified/)
  assert.is(addressProblem('2001:db8::1', false), undefined)
})

rules(
  'webhookUrlProblem :: IPv6 literals judged like any address; names left to the resolver',
  () => {
    assert.is(webhookUrlProblem('http://[2001:db8::1]/x', false), undefined)
    assert.is(webhookUrlProblem('https://[2001:db8::1]:8443/x?y=1', false), undefined)
    assert.is(webhookUrlProblem('http://hooks.example.com/x', false), undefined)
    assert.match(webhookUrlProblem('http://[fe80::1]/x', true)!, /link-local/)
    assert.match(webhookUrlProblem('http://0.0.0.0:8080/', true)!, /unspecified/)
    assert.match(webhookUrlProblem('http://[::]/', true)!, /unspecified/)
    assert.match(webhookUrlProblem('http://[::1]/', false)!, /private/)
    assert.is(webhookUrlProblem('http://[::1]/', true), undefined)
    assert.match(webhookUrlProblem('ftp://example.com/', true)!, /http or https/)
  },
)

rules.run()
