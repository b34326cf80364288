/**
 * The API of devices, products, groups, logs, commands and policy bindings under both shapes (API_VARIANT A and
 * B): one parameterised suite per resource, run once per variant over the real service, broker and MQTT clients.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import {
  connect,
  connectDevice,
  end,
  mqttUrl,
  sleep,
  until,
  type DeviceCredentials,
} from '../../ingest/_mqtt.ts'
import { basic } from './_ingest.ts'
import { mkPoint, mkStream } from './_product-model.ts'
import { created, kits, uniq, variants, type VariantKit } from './_variant.ts'
import type { Device, DeviceListItem } from '../../../src/schemas/devices.ts'
import type { GroupDevice, GroupListItem } from '../../../src/schemas/groups.ts'
import type { ConnectLog, ControlLog } from '../../../src/schemas/logs.ts'
import type { PolicyListItem } from '../../../src/schemas/policies.ts'
import type { ProductListItem } from '../../../src/schemas/products.ts'
import type * as DevicesB from '../../../src/variant-b/schemas/devices.ts'
import type * as GroupsB from '../../../src/variant-b/schemas/groups.ts'
import type * as ProductsB from '../../../src/variant-b/schemas/products.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** The records the suites read, in either variant's form. */
type DeviceDetail = Wire<typeof Device> | Wire<typeof DevicesB.Device>
type Devices = Page<Wire<typeof DeviceListItem> | Wire<typeof DevicesB.DeviceListItem>>
type Products = Page<Wire<typeof ProductListItem> | Wire<typeof ProductsB.ProductListItem>>
type Groups = Page<Wire<typeof GroupListItem> | Wire<typeof GroupsB.GroupListItem>>
type Members = Page<Wire<typeof GroupDevice> | Wire<typeof GroupsB.GroupDevice>>
/** A connection log: its status fields are named after the variant (VariantKit.connectStatusOf reads them). */
type ConnectLogs = Page<
  Omit<Wire<typeof ConnectLog>, 'connectStatus' | 'connectStatusLabel'> & Record<string, unknown>
>
type ControlLogs = Page<Wire<typeof ControlLog>>

/** One suite of `name` under variant `k`, over its own service. */
function variantSuite(k: VariantKit, name: string, env: Record<string, string> = {}) {
  const s = suite(`${name} (Variant ${k.v})`)
  const ctx = { t: undefined as unknown as TestService, clients: [] as MqttClient[] }
  s.before(async () => {
    ctx.t = await startTestService({ ...k.env, ...env })
  })
  s.after(async () => {
    for (const m of ctx.clients) end(m)
    await ctx.t.close()
  })
  return { s, ctx }
}

/** The device record as the detail answers it. */
const detail = async (c: Client, id: number) => (await c.get(`/api/v1/devices/${id}`)).body

for (const v of variants) {
  const k = kits[v]

  // ---------------------------------------------------------------- devices
  {
    const { s, ctx } = variantSuite(k, 'devices')
    const c = () => ctx.t.admin
    const product = async () => created(c(), '/api/v1/products', k.productBody())

    s('create, detail, list :: 201; the detail and list carry the record, offline', async () => {
      const p = await product()
      const body = k.deviceBody(p.productID, { manufacturer: 'ACME' })
      const d = await created(c(), '/api/v1/devices', body)
      assert.is(d.deviceName, body.deviceName)
      assert.is(d.productID, p.productID)
      assert.is(d.manufacturer, 'ACME')
      assert.is(d.deviceType, k.terminal)
      assert.is(k.statusOf(d), 0)
      assert.match(d.createAt!, TIME)
      assert.is(d.updateAt, null)
      const got = await detail(c(), d.id)
      assert.is(got.id, d.id)
      assert.is(got.createUser, 'admin')
      assert.is(got.productName, p.productName)
      const list = await c().get<Devices>(`/api/v1/devices?productID=${p.productID}`)
      assert.is(list.status, 200)
      assert.equal(
        list.body.items.map((x) => [x.id, x.productName]),
        [[d.id, p.productName]],
      )
      assert.is(list.body.meta.count, 1)
    })

    s('create without a body :: 422 FORM_INVALID naming the required fields', async () => {
      const r = await c().post('/api/v1/devices', {})
      assert.is(r.status, 422)
      assert.is(r.body.errorCode, 'FORM_INVALID')
      assert.equal(Object.keys(r.body.errors).sort(), k.requiredDeviceFields)
    })

    s('unknown product :: 404 errors.productID', async () => {
      const r = await c().post('/api/v1/devices', k.deviceBody('no-such-product'))
      assert.is(r.status, 404)
      assert.ok(r.body.errors.productID)
    })

    s(
      'edit sending back the whole record as read :: 200, only the changed fields change',
      async () => {
        const p = await product()
        const d = await created(
          c(),
          '/api/v1/devices',
          k.deviceBody(p.productID, { location: k.location('Room 7') }),
        )
        const read = await detail(c(), d.id)
        const r = await c().put(`/api/v1/devices/${d.id}`, {
          ...read,
          description: 'moved',
          blocked: 1,
        })
        assert.is(r.status, 200, r.text)
        assert.is(r.body.description, 'moved')
        assert.is(r.body.blocked, 1)
        assert.match(r.body.updateAt, TIME)
        const after = await detail(c(), d.id)
        const same = (x: DeviceDetail) => {
          const { description, blocked, updateAt, ...rest } = x
          return rest
        }
        assert.equal(same(after), same(read))
        assert.equal(after.location, k.location('Room 7'))
      },
    )

    s('status follows a real MQTT connection :: 1 while connected, 0 after', async () => {
      const p = await product()
      const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
      const m = await connectDevice(ctx.t, d)
      ctx.clients.push(m)
      const on = await until(
        () => detail(c(), d.id),
        (x) => k.statusOf(x) === 1,
      )
      assert.is(k.statusOf(on), 1)
      assert.is(on.clientIP, '127.0.0.1')
      assert.match(on.connectedAt, TIME)
      end(m)
      const off = await until(
        () => detail(c(), d.id),
        (x) => k.statusOf(x) === 0,
      )
      assert.is(k.statusOf(off), 0)
    })

    s('gateway :: carries a child; its credentials send for the child', async () => {
      const p = await product()
      const temp = await mkPoint(c(), p.id, 'temp')
      await mkStream(c(), p.productID, [temp.id], { topic: 'telemetry' })
      const gw = await k.newGateway(c(), p.productID)
      const child = await created(c(), '/api/v1/devices', k.childBody(p.productID, gw.id))
      assert.is(child.gateway, gw.id)
      const r = await new Client(ctx.t.url, basic(gw)).post('/api/v1/ingest', {
        topic: 'telemetry',
        payload: {
          data_type: 'event',
          data: { devices: [{ device_id: child.deviceID, data: { temp: 21 } }] },
        },
      })
      assert.is(r.status, 202, r.text)
      assert.equal([r.body.accepted, r.body.rejected], [1, []])
      const gone = await c().del(`/api/v1/devices?ids=${child.id}`)
      assert.is(gone.status, 204)
    })

    s('delete :: 204, then 404; unknown ids 404', async () => {
      const p = await product()
      const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
      assert.is((await c().del(`/api/v1/devices?ids=${d.id}`)).status, 204)
      assert.is((await c().get(`/api/v1/devices/${d.id}`)).status, 404)
      assert.is((await c().del(`/api/v1/devices?ids=${d.id}`)).status, 404)
    })

    s.run()
  }

  // ---------------------------------------------------------------- products
  {
    const { s, ctx } = variantSuite(k, 'products')
    const c = () => ctx.t.admin

    s('create, detail, list, edit, delete :: the record throughout', async () => {
      const body = k.productBody({ description: 'first' })
      const p = await created(c(), '/api/v1/products', body)
      assert.is(p.productName, body.productName)
      assert.is(p.description, 'first')
      assert.is(p.deviceCount, 0)
      assert.is(p.updateAt, null)
      const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
      const read = (await c().get(`/api/v1/products/${p.id}`)).body
      assert.is(read.deviceCount, 1)
      assert.is(read.createUser, 'admin')
      if (k.v === 'B') assert.equal(read.devices, [{ id: d.id }])
      const list = await c().get<Products>(
        `/api/v1/products?productName_like=${String(body.productName)}`,
      )
      assert.equal(
        list.body.items.map((x) => x.id),
        [p.id],
      )
      const r = await c().put(`/api/v1/products/${p.id}`, { ...read, description: 'second' })
      assert.is(r.status, 200, r.text)
      assert.is(r.body.description, 'second')
      assert.match(r.body.updateAt, TIME)
      assert.is((await c().del(`/api/v1/products?ids=${p.id}`)).status, 400)
      await c().del(`/api/v1/devices?ids=${d.id}`)
      assert.is((await c().del(`/api/v1/products?ids=${p.id}`)).status, 204)
    })

    s('create without a body :: 422 naming the required fields', async () => {
      const r = await c().post('/api/v1/products', {})
      assert.is(r.status, 422)
      assert.equal(Object.keys(r.body.errors).sort(), k.requiredProductFields)
    })

    s.run()
  }

  // ---------------------------------------------------------------- groups
  {
    const { s, ctx } = variantSuite(k, 'groups')
    const c = () => ctx.t.admin

    s('create, members, filters, edit, delete :: the record throughout', async () => {
      const p = await created(c(), '/api/v1/products', k.productBody())
      const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
      const body = k.groupBody(p.productID, { description: 'g' })
      const g = await created(c(), '/api/v1/groups', body)
      assert.is(g.groupName, body.groupName)
      assert.is(g.productName, p.productName)
      const add = await c().post(`/api/v1/groups/${g.id}/devices`, { ids: [d.id] })
      assert.is(add.status, 201, add.text)
      const members = await c().get<Members>(`/api/v1/groups/${g.id}/devices`)
      assert.equal(
        members.body.items.map((x) => [x.id, x.status, x.deviceType]),
        [[d.id, 0, k.terminal]],
      )
      const read = (await c().get(`/api/v1/groups/${g.id}`)).body
      if (k.v === 'B') assert.equal(read.devices, [{ id: d.id }])
      else assert.is(read.deviceCount, 1)
      const byName = await c().get<Groups>(
        `/api/v1/groups?groupName_like=${String(body.groupName)}`,
      )
      assert.equal(
        byName.body.items.map((x) => x.id),
        [g.id],
      )
      const byID = await c().get<Groups>(`/api/v1/groups?groupID_like=${g.groupID}`)
      assert.equal(
        byID.body.items.map((x) => x.id),
        [g.id],
      )
      const inGroup = await c().get<Devices>(`/api/v1/devices?groupID=${g.groupID}`)
      assert.equal(
        inGroup.body.items.map((x) => x.id),
        [d.id],
      )
      const r = await c().put(`/api/v1/groups/${g.id}`, { ...read, description: 'h' })
      assert.is(r.status, 200, r.text)
      assert.is(r.body.description, 'h')
      assert.is((await c().del(`/api/v1/groups/${g.id}/devices?ids=${d.id}`)).status, 204)
      assert.is((await c().del(`/api/v1/groups?ids=${g.id}`)).status, 204)
    })

    s('create without a body :: 422 naming the required fields', async () => {
      const r = await c().post('/api/v1/groups', {})
      assert.is(r.status, 422)
      assert.equal(Object.keys(r.body.errors).sort(), k.requiredGroupFields)
    })

    s.run()
  }

  // ---------------------------------------------------------------- logs
  {
    const { s, ctx } = variantSuite(k, 'logs')
    const c = () => ctx.t.admin

    s(
      'connection logs :: online, offline, and a refused password as authentication failed with its reason',
      async () => {
        const p = await created(c(), '/api/v1/products', k.productBody())
        const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
        const m = await connectDevice(ctx.t, d)
        await sleep(100)
        end(m)
        const bad = await connect(mqttUrl(ctx.t), {
          clientId: d.deviceID,
          username: d.deviceUsername,
          password: 'wrong',
        })
        end(bad.client)
        const logs = await until(
          () => c().get<ConnectLogs>(`/api/v1/devices/${d.id}/connect_logs?_sort=id&_order=asc`),
          (r) => r.body.items?.length === 3,
        )
        assert.is(logs.status, 200)
        assert.equal(logs.body.items.map(k.connectStatusOf).sort(), [0, 1, 2])
        const all = await c().get(`/api/v1/device_connect_logs?deviceID_like=${d.deviceID}`)
        assert.is(all.body.meta.count, 3)
        const refused = await c().get(
          `/api/v1/device_connect_logs?deviceID=${d.deviceID}&${k.connectStatusField}=2`,
        )
        assert.equal(refused.body.items.map(k.connectStatusOf), [2])
        assert.equal(
          logs.body.items.map((l) => [k.connectStatusOf(l), l.reason]),
          [
            [1, null],
            [0, null],
            [2, 'bad credentials'],
          ],
        )
      },
    )

    s(
      'events :: a device publish is an uplink message; the global list names the product',
      async () => {
        const p = await created(c(), '/api/v1/products', k.productBody())
        const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
        const m = await connectDevice(ctx.t, d)
        ctx.clients.push(m)
        const topic = `/mqtt/${d.tenantID}/${p.productID}/${d.deviceID}/up`
        await m.publishAsync(topic, JSON.stringify({ data_type: 'event', data: { a: 1 } }))
        const events = await until(
          () => c().get(`/api/v1/device_events?deviceID_like=${d.deviceID}`),
          (r) => r.body.items?.length === 1,
        )
        assert.is(events.body.items[0].productName, p.productName)
        assert.is(events.body.items[0].deviceName, d.deviceName)
        const own = await c().get(`/api/v1/devices/${d.id}/events`)
        assert.is(own.body.meta.count, 1)
      },
    )

    s.run()
  }

  // ---------------------------------------------------------------- commands
  {
    const { s, ctx } = variantSuite(k, 'commands', { COMMAND_TIMEOUT: '2' })
    const c = () => ctx.t.admin

    const online = async (d: DeviceCredentials) => {
      const m = await connectDevice(ctx.t, d)
      ctx.clients.push(m)
      const got: Array<{ topic: string; body: Record<string, unknown> }> = []
      m.on('message', (topic, payload) => got.push({ topic, body: JSON.parse(String(payload)) }))
      return got
    }

    s('device_publish without topic :: to the device inbox; a control log', async () => {
      const p = await created(c(), '/api/v1/products', k.productBody())
      const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
      const got = await online(d)
      await sleep(100)
      const r = await c().post('/api/v1/device_publish', { deviceID: d.deviceID, payload: 'hi' })
      assert.is(r.status, 201, r.text)
      await until(
        async () => got.length,
        (n) => n === 1,
      )
      assert.match(got[0]!.topic, /(^|\/)inbox$/)
      assert.is(got[0]!.body.data, 'hi')
      const logs = await c().get<ControlLogs>(`/api/v1/devices/${d.id}/control_logs`)
      assert.equal(
        logs.body.items.map((l) => l.payload),
        ['hi'],
      )
    })

    s(
      'group_publish needAck 0 and 1 :: one group publish (3) or one command per device',
      async () => {
        const p = await created(c(), '/api/v1/products', k.productBody())
        const a = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
        const b = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
        const g = await created(
          c(),
          '/api/v1/groups',
          k.groupBody(p.productID, { description: 'g' }),
        )
        await c().post(`/api/v1/groups/${g.id}/devices`, { ids: [a.id, b.id] })
        const gotA = await online(a)
        const gotB = await online(b)
        await sleep(150)
        const zero = await c().post('/api/v1/group_publish', {
          groupID: g.groupID,
          payload: 'all',
          needAck: 0,
        })
        assert.is(zero.status, 201, zero.text)
        await until(
          async () => gotA.length + gotB.length,
          (n) => n === 2,
        )
        assert.match(gotA[0]!.topic, new RegExp(`(^|/)group/${g.groupID}$`))
        const groupLogs = await until(
          () => c().get(`/api/v1/groups/${g.id}/control_logs`),
          (r) => r.body.items?.length === 1,
        )
        assert.is(groupLogs.body.items[0].publishStatus, 3)
        assert.is((await c().get(`/api/v1/devices/${a.id}/control_logs`)).body.meta.count, 0)
        const one = await c().post('/api/v1/group_publish', {
          groupID: g.groupID,
          payload: 'each',
          needAck: 1,
        })
        assert.is(one.status, 201, one.text)
        await until(
          async () => gotA.length + gotB.length,
          (n) => n === 4,
        )
        assert.match(gotB[1]!.topic, /(^|\/)inbox$/)
        for (const d of [a, b]) {
          const logs = await until(
            () => c().get<ControlLogs>(`/api/v1/devices/${d.id}/control_logs`),
            (r) => r.body.items?.[0]?.publishStatus === 2,
          )
          assert.equal(
            logs.body.items.map((l) => [l.payload, l.publishStatus]),
            [['each', 2]],
          )
        }
      },
    )

    s.run()
  }

  // ---------------------------------------------------------------- policy bindings
  {
    const { s, ctx } = variantSuite(k, 'policy bindings')
    const c = () => ctx.t.admin

    s(
      'bind from both sides, list, unbind :: the device and the policy see each other',
      async () => {
        const p = await created(c(), '/api/v1/products', k.productBody())
        const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
        const pol = await created(c(), '/api/v1/policies', {
          name: uniq('pol'),
          topic: 'data/#',
          access: 0,
          allow: 1,
        })
        const bind = await c().post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: [d.id] })
        assert.is(bind.status, 201, bind.text)
        const bound = await c().get(`/api/v1/policies/${pol.id}/devices`)
        assert.equal(bound.body.items, [
          {
            id: d.id,
            deviceID: d.deviceID,
            deviceName: d.deviceName,
            ...(k.v === 'B' ? { deviceType: 0 } : {}),
            deviceTypeLabel: '终端',
          },
        ])
        const mine = await c().get<Page<Wire<typeof PolicyListItem>>>(
          `/api/v1/devices/${d.id}/policies`,
        )
        assert.equal(
          mine.body.items.map((x) => x.id),
          [pol.id],
        )
        assert.is((await c().del(`/api/v1/devices/${d.id}/policies?ids=${pol.id}`)).status, 204)
        const again = await c().post(`/api/v1/devices/${d.id}/policies`, { ids: [pol.id] })
        assert.is(again.status, 201, again.text)
        assert.is(again.body.meta.count, 1)
        assert.is((await c().del(`/api/v1/policies/${pol.id}/devices?ids=${d.id}`)).status, 204)
        assert.is((await c().get(`/api/v1/policies/${pol.id}/devices`)).body.meta.count, 0)
      },
    )

    s.run()
  }
}
