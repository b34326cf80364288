import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { DEVICE_TABLE, DeviceStored, GATEWAY_TABLE } from '../../store/fields/devices.ts'
import {
  csvColumns,
  emptyValues,
  filterFields,
  labelFields,
  writeColumns,
  type FieldTable,
} from '../../store/fields/table.ts'
import { Device, DeviceCreate } from '../../src/schemas/devices.ts'
import { Gateway, GatewayCreate } from '../../src/schemas/gateways.ts'
import { DEVICE_DETAIL_KEYS } from '../_support/wire.ts'

const fields = suite('field tables (store/fields)')

/** Wire fields of a response schema, without the `*Label` fields the serializer adds. */
const wireFields = (schema: { shape: object }) =>
  Object.keys(schema.shape).filter((k) => !k.endsWith('Label'))

for (const [name, table, detail, create] of [
  ['devices', DEVICE_TABLE, Device, DeviceCreate],
  ['gateways', GATEWAY_TABLE, Gateway, GatewayCreate],
] as const) {
  const t: FieldTable = table
  fields(`${name}: every field of the detail form :: declared in the table`, () => {
    assert.equal(
      wireFields(detail).filter((k) => !(k in t)),
      [],
    )
  })

  fields(`${name}: every label of the detail form :: has its enumeration in the table`, () => {
    const labelled = Object.keys(detail.shape)
      .filter((k) => k.endsWith('Label'))
      .map((k) => k.slice(0, -5))
    assert.equal(labelled.sort(), Object.keys(labelFields(t)).sort())
  })

  fields(
    `${name}: every writable field :: accepted by the create schema (or set by the server)`,
    () => {
      const server = new Set(['productIntID'])
      const missing = Object.keys(writeColumns(t)).filter(
        (k) => !server.has(k) && !(k in create.shape),
      )
      assert.equal(missing, [])
    },
  )

  fields(`${name}: filters :: readable fields with a SQL expression`, () => {
    for (const k of Object.keys(filterFields(t))) assert.ok(t[k]!.sql.length > 0, k)
  })
}

fields('device create defaults :: every writable field, nothing else', () => {
  const empty = emptyValues(DEVICE_TABLE)
  assert.equal(Object.keys(empty).sort(), Object.keys(writeColumns(DEVICE_TABLE)).sort())
  assert.is(empty.deviceType, 1)
  assert.is(empty.blocked, 0)
  assert.is(empty.lora, null)
})

fields('device CSV :: the export columns in their documented order', () => {
  assert.equal(
    csvColumns(DEVICE_TABLE).map(([f]) => f),
    [
      'deviceName',
      'deviceID',
      'productID',
      'deviceType',
      'upLinkSystem',
      'gateway',
      'parentDevice',
      'cloudProtocol',
      'authType',
      'deviceUsername',
      'token',
      'blocked',
      ...DEVICE_DETAIL_KEYS,
    ],
  )
})

fields('device stored schema :: parses a full write and refuses a wrong type', () => {
  const write = { ...emptyValues(DEVICE_TABLE), deviceID: 'd1', deviceUsername: 'u', token: 't' }
  assert.ok(DeviceStored.safeParse(write).success)
  assert.not.ok(DeviceStored.safeParse({ ...write, blocked: 'yes' }).success)
})

fields.run()
