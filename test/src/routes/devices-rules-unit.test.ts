import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  cloudProtocolRule,
  credentialRules,
  deviceDraft,
  keepApplicableLinks,
  loraRules,
  parentRules,
  protocolRules,
  upLinkRules,
} from '../../../src/rules/devices.ts'

const draft = (fields: Record<string, unknown> = {}) =>
  deviceDraft({ deviceName: 'd', authType: 1, upLinkSystem: 1, ...fields }, undefined, 1)

const rules = suite('device rules (pure functions)')

rules('deviceDraft :: absent keeps the stored value, null clears, unknown keys ignored', () => {
  const stored = draft({ description: 'x', manufacturer: 'm', deviceID: 'id1' })
  const d = deviceDraft({ description: null, bogus: 1, deviceStatus: 1 }, stored, 7)
  assert.equal([d.description, d.manufacturer, d.deviceID, d.productIntID], [null, 'm', 'id1', 7])
  assert.not.ok('bogus' in d)
  assert.not.ok('deviceStatus' in d)
})

rules('keepApplicableLinks :: drops links that do not apply, keeps gateway for LoRa abp', () => {
  const cloud = keepApplicableLinks(draft({ gateway: 4, parentDevice: 5 }), 1)
  assert.equal([cloud.gateway, cloud.parentDevice], [null, null])
  const viaGw = keepApplicableLinks(draft({ upLinkSystem: 2, gateway: 4, parentDevice: 5 }), 1)
  assert.equal([viaGw.gateway, viaGw.parentDevice], [4, null])
  const abp = keepApplicableLinks(draft({ gateway: 4, lora: { type: 'abp' } }), 4)
  assert.is(abp.gateway, 4)
})

rules('upLinkRules :: rules 2-5', () => {
  assert.equal(upLinkRules(draft()), {})
  assert.equal(Object.keys(upLinkRules(draft({ upLinkSystem: null }))), ['upLinkSystem'])
  assert.equal(Object.keys(upLinkRules(draft({ deviceType: 3 }))), ['upLinkSystem'])
  assert.equal(upLinkRules(draft({ deviceType: 3, upLinkSystem: null })), {})
  assert.equal(Object.keys(upLinkRules(draft({ upLinkSystem: 2 }))), ['gateway'])
  assert.equal(Object.keys(upLinkRules(draft({ upLinkSystem: 3 }))), ['parentDevice'])
})

rules('parentRules :: itself and descendants refused, create never a cycle', () => {
  assert.equal(parentRules(undefined, 3, [3, 2, 1]), {})
  assert.ok(parentRules(3, 3, [3]).parentDevice)
  assert.ok(parentRules(1, 3, [3, 2, 1]).parentDevice)
  assert.equal(parentRules(9, 3, [3, 2, 1]), {})
})

rules('cloudProtocolRule :: must be the product protocol when given', () => {
  assert.equal(cloudProtocolRule(undefined, 4), {})
  assert.equal(cloudProtocolRule(4, 4), {})
  assert.ok(cloudProtocolRule(1, 4).cloudProtocol)
})

rules('protocolRules :: extra required fields per protocol', () => {
  assert.equal(Object.keys(protocolRules(draft({ authType: null }), 6)), ['authType'])
  assert.equal(Object.keys(protocolRules(draft({ authType: null }), 3)).sort(), ['IMEI', 'autoSub'])
  assert.equal(Object.keys(protocolRules(draft({ authType: null }), 7)).sort(), [
    'authType',
    'modBusIndex',
  ])
  assert.equal(protocolRules(draft({ modBusIndex: 0 }), 7), {})
})

rules('loraRules :: otaa and abp rows', () => {
  const otaa = {
    type: 'otaa',
    appEUI: '0'.repeat(16),
    appKey: '0'.repeat(32),
    fcntCheck: 0,
    canJoin: false,
  }
  assert.equal(loraRules(draft({ deviceID: 'ABCDEF0123456789', lora: otaa })), {})
  assert.equal(Object.keys(loraRules(draft({ deviceID: 'ABCDEF01', lora: otaa }))), ['deviceID'])
  const abp = {
    type: 'abp',
    region: 'CN470',
    nwkSKey: 'a'.repeat(32),
    appSKey: 'b'.repeat(32),
    fcntUp: 1,
    fcntDown: 2,
    fcntCheck: 0,
  }
  assert.equal(loraRules(draft({ deviceID: 'ABCDEF01', gateway: 3, lora: abp })), {})
  assert.equal(Object.keys(loraRules(draft({ deviceID: 'ABCDEF01', lora: abp }))), ['gateway'])
})

rules('credentialRules :: changed values refused, same or absent accepted', () => {
  const current = { deviceID: 'a', deviceUsername: 'b', token: 'c' }
  assert.equal(credentialRules(undefined, { deviceID: 'x' }), {})
  assert.equal(credentialRules(current, { deviceID: 'a', token: null }), {})
  assert.equal(credentialRules(current, { deviceUsername: 'z' }), {
    deviceUsername: 'cannot be changed',
  })
})

rules.run()
