/**
 * The record types of store/fields/products.ts and devices.ts (`RecordOf`) are compile-time claims: repositories do not parse
 * rows. These cases read real records through the ports and check each holds exactly its table's fields, of the
 * types the table declares, so a column that answers another type than declared fails here.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb, type Db } from '../../store/libsql/db.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import { GROUP_MEMBER_TABLE, GROUP_TABLE, PRODUCT_TABLE } from '../../store/fields/products.ts'
import {
  DEVICE_TABLE,
  GATEWAY_TABLE,
  type DeviceFields,
  type GatewayFields,
} from '../../store/fields/devices.ts'
import { emptyValues, type FieldTable } from '../../store/fields/table.ts'
import { NotFound, Referenced } from '../../store/errors.ts'
import type { MetaStore } from '../../store/types.ts'

const ctx = {} as { dir: string; db: Db; meta: MetaStore }
const all = { page: 1, limit: 100, filters: [] }

/** The exact record a table declares: its fields (no more), each of its read (else stored) type. */
const recordSchema = (table: FieldTable) =>
  z.strictObject(
    Object.fromEntries(Object.entries(table).map(([k, f]) => [k, f.read ?? f.type ?? z.unknown()])),
  )

function holds(table: FieldTable, records: unknown[]) {
  assert.ok(records.length > 0)
  for (const r of records) {
    const parsed = recordSchema(table).safeParse(r)
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues))
  }
}

const records = suite('typed records (store/fields/products.ts, devices.ts)')

records.before(async () => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-records-'))
  ctx.db = await openDb({ url: `file:${ctx.dir}/meta.db` })
  ctx.meta = createMetaStore(ctx.db)
})

records.after(async () => {
  await ctx.meta.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

records(
  'products :: list, get, byProductID, create and update answer the table record',
  async () => {
    const p = ctx.meta.products
    const created = await p.create('T1', null, { productName: 'p1', cloudProtocol: 1 })
    const updated = await p.update('T1', created.id, { description: 'd' })
    assert.is(updated.description, 'd')
    assert.type(updated.updateAt, 'number')
    await p.create('T2', null, { productName: 'p1', cloudProtocol: 1, description: null })
    holds(PRODUCT_TABLE, [
      created,
      updated,
      await p.get('T1', created.id),
      await p.byProductID('T1', created.productID),
      ...(await p.list('T1', all)).items,
    ])
    assert.equal(
      (await p.list('T1', all)).items.map((r) => r.productName),
      ['p1'],
    )
  },
)

records('groups and members :: the table records, counts as numbers', async () => {
  const product = await ctx.meta.products.create('T1', null, {
    productName: 'p2',
    cloudProtocol: 1,
  })
  const d = await ctx.db.run(
    `INSERT INTO devices (tenant_id, product_int_id, device_id, device_name, device_username, token, create_at)
     VALUES ('T1', ?, 'dev-1', 'dev-1', 'u', 'k', 0)`,
    [product.id],
  )
  const g = ctx.meta.groups
  const created = await g.create('T1', null, { productID: product.productID, groupName: 'g1' })
  await g.members.add('T1', created.id, [d.lastId])
  const got = await g.get('T1', created.id)
  assert.is(got.deviceCount, 1)
  holds(GROUP_TABLE, [
    created,
    got,
    await g.update('T1', created.id, {}),
    ...(await g.list('T1', all)).items,
  ])
  holds(GROUP_MEMBER_TABLE, (await g.members.list('T1', created.id, all)).items)
})

records('deletes refused or missing :: each repository keeps its message', async () => {
  const product = await ctx.meta.products.create('T1', null, {
    productName: 'p3',
    cloudProtocol: 1,
  })
  const group = await ctx.meta.groups.create('T1', null, {
    productID: product.productID,
    groupName: 'g3',
  })
  const refused = await ctx.meta.products.delete('T1', [product.id]).catch((e: unknown) => e)
  assert.instance(refused, Referenced)
  assert.is((refused as Referenced).message, `product ${product.id} (p3) still has 1 groups`)
  const missing = await ctx.meta.groups.delete('T1', [group.id, 999_999]).catch((e: unknown) => e)
  assert.instance(missing, NotFound)
  assert.is((missing as NotFound).message, 'no group 999999')
  await ctx.meta.groups.delete('T1', [group.id])
  await ctx.meta.products.delete('T1', [product.id])
  assert.is(
    (await ctx.meta.products.list('T1', all)).items.some((r) => r.id === product.id),
    false,
  )
})

records(
  'devices and gateways :: list, get, getAny, create and update answer the table record, a gateway read as a device too',
  async () => {
    const product = await ctx.meta.products.create('T1', null, {
      productName: 'p4',
      cloudProtocol: 1,
    })
    const repo = ctx.meta.devices
    const creds = (id: string) => ({ deviceID: id, deviceUsername: `u-${id}`, token: `t-${id}` })
    const gateway = await repo.gateways.create('T1', null, {
      ...(emptyValues(GATEWAY_TABLE) as GatewayFields),
      ...creds('gw-4'),
      productIntID: product.id,
      gatewayName: 'gw-4',
      location: 'roof',
    })
    const fields = {
      ...(emptyValues(DEVICE_TABLE) as DeviceFields),
      productIntID: product.id,
      gateway: gateway.id,
      location: { room: 2 },
      lora: { type: 'otaa' },
      metaData: { a: 1 },
      scopes: ['x'],
    }
    const parent = await repo.create('T1', null, { ...fields, ...creds('d-4'), deviceName: 'd-4' })
    const child = await repo.create('T1', null, {
      ...fields,
      ...creds('d-5'),
      deviceName: 'd-5',
      parentDevice: parent.id,
    })
    assert.is(child.parentDeviceName, 'd-4')
    assert.is(child.gatewayName, 'gw-4')
    assert.is(child.location, '{"room":2}')
    const updated = await repo.update('T1', child.id, {
      ...fields,
      ...creds('d-5'),
      deviceName: 'd-6',
    })
    assert.is(updated.deviceName, 'd-6')
    assert.type(updated.updateAt, 'number')
    const asDevice = await repo.getAny('T1', gateway.id)
    assert.is(asDevice.kind, 'gateway')
    assert.is(asDevice.deviceType, null)
    holds(DEVICE_TABLE, [
      parent,
      updated,
      asDevice,
      await repo.get('T1', parent.id),
      ...(await repo.list('T1', all, { kinds: ['device', 'gateway'] })).items,
    ])
    const gw = await repo.gateways.get('T1', gateway.id)
    assert.is(gw.deviceCount, 2)
    holds(GATEWAY_TABLE, [
      gateway,
      gw,
      await repo.gateways.update('T1', gateway.id, {
        ...(await repo.gateways.current('T1', gateway.id)),
        mac: null,
      }),
      ...(await repo.gateways.list('T1', all)).items,
    ])
  },
)

records.run()
