/**
 * The event stage (store/libsql/event-stage.ts) over real files: an embedded telemetry store and a metadata
 * database. Events written with their values read back through the event log at once; every staged event reaches
 * `events` exactly once whatever stops the process (before a move, between a move's insert and the stage's
 * delete); two telemetry files (two processes) move into one metadata database without touching each other's
 * rows; events of a device deleted while they waited are not inserted; a move that fails is retried; more events
 * than the mover holds in memory are read back from the stage.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openDb, type Db } from '../../store/libsql/db.ts'
import { EventStageMover } from '../../store/libsql/event-stage.ts'
import { LogsRepo } from '../../store/libsql/logs.ts'
import { LibsqlTelemetryStore } from '../../store/libsql/telemetry.ts'
import type { TelemetryPoint } from '../../store/telemetry.ts'
import type { EventInput } from '../../store/types.ts'

const t = suite('event stage')
let dir: string
t.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'devicecloud-stage-'))
})
t.after(() => rmSync(dir, { recursive: true, force: true }))

const BASE = 1_700_000_000_000
let files = 0

/** A fresh metadata database with one product and `devices` devices of tenant `tenant`; their record ids. */
async function metadata(tenant = 'tenant-a', devices = 3): Promise<{ db: Db; ids: number[] }> {
  const db = await openDb({ url: `file:${join(dir, `meta-${++files}.db`)}` })
  const p = await db.run(
    `INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at)
     VALUES (?, 'prod', 'Product', 1, ?)`,
    [tenant, BASE],
  )
  const ids: number[] = []
  for (let i = 0; i < devices; i++) {
    const r = await db.run(
      `INSERT INTO devices (tenant_id, product_int_id, device_id, device_name, device_username, token,
         auth_type, device_type, up_link_system, create_at)
       VALUES (?, ?, ?, ?, ?, 'tok', 1, 1, 1, ?)`,
      [tenant, p.lastId, `${tenant}-d${i}`, `device ${i}`, `user-${tenant}-${i}`, BASE],
    )
    ids.push(r.lastId)
  }
  return { db, ids }
}

const telemetryUrl = () => `file:${join(dir, `telemetry-${++files}.db`)}`
/** A telemetry store without its background flusher (the tests decide what happens when). */
const openTelemetry = (url: string) => LibsqlTelemetryStore.open({ url, flushIntervalMs: 0 })

/** The `k`-th uplink of device `deviceIntID`: one value and its event. */
function uplink(
  tenant: string,
  deviceIntID: number,
  k: number,
): { points: TelemetryPoint[]; events: EventInput[] } {
  const deviceID = `${tenant}-d${deviceIntID}`
  return {
    points: [
      { tenantID: tenant, productID: 'prod', deviceID, dataPointID: 'x', time: BASE + k, value: k },
    ],
    events: [
      {
        tenantID: tenant,
        deviceIntID,
        deviceID,
        deviceName: 'device',
        topic: 'telemetry',
        payload: JSON.stringify({ k, device: deviceIntID }),
        msgTime: BASE + k,
      },
    ],
  }
}

/** Every event's (device, k) in `events`, as `device:k` strings, sorted (duplicates kept). */
async function stored(db: Db): Promise<string[]> {
  const rows = await db.all('SELECT payload FROM events')
  return rows
    .map((r) => {
      const p = JSON.parse(String(r.payload)) as { k: number; device: number }
      return `${p.device}:${p.k}`
    })
    .sort()
}

async function raw(url: string, sql: string): Promise<number> {
  const c = createClient({ url })
  try {
    return Number((await c.execute(sql)).rows[0]![0])
  } finally {
    c.close()
  }
}

t(
  'a read right after the write :: the event list has the events, the values are stored',
  async () => {
    const { db, ids } = await metadata()
    const telemetry = await openTelemetry(telemetryUrl())
    const mover = new EventStageMover(db, telemetry)
    await mover.start()
    const logs = new LogsRepo(db, mover)
    for (let k = 0; k < 5; k++) {
      const u = uplink('tenant-a', ids[k % ids.length]!, k)
      await mover.write(u.points, u.events)
    }
    // no timer has run yet (200 ms): the list waits for the move
    const page = await logs.events('tenant-a', { page: 1, limit: 10, filters: [] })
    assert.is(page.count, 5)
    assert.equal(page.items.map((e) => JSON.parse(String(e.payload)).k).sort(), [0, 1, 2, 3, 4])
    const own = await logs.deviceEvents('tenant-a', ids[0]!, { page: 1, limit: 10, filters: [] })
    assert.is(own.count, 2)
    const series = await telemetry.readRaw({
      tenantID: 'tenant-a',
      deviceID: `tenant-a-d${ids[1]}`,
      dataPointIDs: ['x'],
      start: BASE,
      end: BASE + 10,
    })
    assert.equal(series.get('x')!.value, [1, 4])
    await mover.close()
    await telemetry.close()
    await db.close()
  },
)

t('stopped before a move (kill -9) :: the next start moves every staged event once', async () => {
  const { db, ids } = await metadata()
  const url = telemetryUrl()
  const telemetry = await openTelemetry(url)
  const mover = new EventStageMover(db, telemetry)
  await mover.start()
  for (let k = 0; k < 30; k++) {
    const u = uplink('tenant-a', ids[k % 3]!, k)
    await mover.write(u.points, u.events)
  }
  // the process "dies": nothing moved (the move timer never ran), the telemetry file holds the stage
  await telemetry.close()
  assert.is(await raw(url, 'SELECT sum(n) FROM event_stage'), 30)
  assert.equal(await stored(db), [])

  const again = await openTelemetry(url)
  const next = new EventStageMover(db, again)
  await next.start()
  const all = await stored(db)
  assert.is(all.length, 30)
  assert.is(new Set(all).size, 30, 'no event twice')
  await next.close()
  await again.close()
  await db.close()
})

t('stopped between a move and the stage delete :: nothing is moved twice', async () => {
  const { db, ids } = await metadata()
  const url = telemetryUrl()
  const telemetry = await openTelemetry(url)
  const mover = new EventStageMover(db, telemetry)
  await mover.start()
  for (let k = 0; k < 20; k++) {
    const u = uplink('tenant-a', ids[k % 3]!, k)
    await mover.write(u.points, u.events)
  }
  await mover.settle() // moved; the stage's rows are deleted only with the next write, which never comes
  assert.is((await stored(db)).length, 20)
  await telemetry.close()
  assert.is(await raw(url, 'SELECT sum(n) FROM event_stage'), 20, 'the moved rows are still staged')

  const again = await openTelemetry(url)
  const next = new EventStageMover(db, again)
  await next.start()
  const u = uplink('tenant-a', ids[0]!, 20)
  await next.write(u.points, u.events)
  await next.settle()
  const all = await stored(db)
  assert.is(all.length, 21)
  assert.is(new Set(all).size, 21, 'no event twice')
  // the write after the move deleted the moved rows
  await next.write(uplink('tenant-a', ids[1]!, 21).points, [])
  assert.is(await raw(url, 'SELECT count(*) FROM event_stage WHERE id <= 20'), 0)
  await next.close()
  await again.close()
  await db.close()
})

t('two telemetry files, one metadata database :: each moves its own events, once', async () => {
  const { db, ids } = await metadata('tenant-a', 4)
  const stores = await Promise.all([openTelemetry(telemetryUrl()), openTelemetry(telemetryUrl())])
  const movers = stores.map((s) => new EventStageMover(db, s))
  for (const m of movers) await m.start()
  // interleaved writes: node 0 writes even k, node 1 odd k; the stage ids of both files start at 1
  for (let k = 0; k < 40; k++) {
    const u = uplink('tenant-a', ids[k % 4]!, k)
    await movers[k % 2]!.write(u.points, u.events)
  }
  await Promise.all(movers.map((m) => m.settle()))
  const all = await stored(db)
  assert.is(all.length, 40)
  assert.is(new Set(all).size, 40)
  const marks = await db.all('SELECT epoch, through FROM event_moves ORDER BY through')
  assert.is(marks.length, 2, 'one mark a telemetry file')
  assert.not.equal(marks[0]!.epoch, marks[1]!.epoch)
  assert.equal(
    marks.map((m) => Number(m.through)),
    [20, 20],
  )
  // a second settle moves nothing again
  await Promise.all(movers.map((m) => m.settle()))
  assert.is((await stored(db)).length, 40)
  for (const m of movers) await m.close()
  for (const s of stores) await s.close()
  await db.close()
})

t('a device deleted while its events wait :: they are not inserted, the others are', async () => {
  const { db, ids } = await metadata('tenant-a', 2)
  const telemetry = await openTelemetry(telemetryUrl())
  const mover = new EventStageMover(db, telemetry)
  await mover.start()
  const a = uplink('tenant-a', ids[0]!, 1)
  const b = uplink('tenant-a', ids[1]!, 2)
  await mover.write([...a.points, ...b.points], [...a.events, ...b.events])
  await db.run('DELETE FROM devices WHERE id = ?', [ids[0]!])
  await mover.settle()
  assert.equal(await stored(db), [`${ids[1]}:2`])
  await mover.close()
  await telemetry.close()
  await db.close()
})

t('a move that fails :: logged, retried by the next read, nothing lost or doubled', async () => {
  const { db, ids } = await metadata()
  const url = telemetryUrl()
  const telemetry = await openTelemetry(url)
  const lines: string[] = []
  const logger = {
    error: (o: unknown, msg?: string) => void lines.push(`${msg ?? ''} ${JSON.stringify(o)}`),
    child: () => logger,
  }
  const mover = new EventStageMover(db, telemetry, logger as never)
  await mover.start()
  for (let k = 0; k < 6; k++) {
    const u = uplink('tenant-a', ids[k % 3]!, k)
    await mover.write(u.points, u.events)
  }
  // the event log cannot take rows for a while
  await db.run('ALTER TABLE events RENAME TO events_away')
  await mover.settle() // resolves: a read goes on without the staged rows rather than failing
  assert.ok(
    lines.some((l) => l.includes('moving staged events failed')),
    lines.join('\n'),
  )
  // writes go on for 1.2 s: their move timer backs off (200 ms, then 400, 800...), not a failure every 200 ms
  const failedBefore = lines.length
  const until = Date.now() + 1200
  for (let k = 6; Date.now() < until; k++) {
    const u = uplink('tenant-a', ids[k % 3]!, k)
    await mover.write(u.points, u.events)
    await new Promise((r) => setTimeout(r, 50))
  }
  const failed = lines.length - failedBefore
  assert.ok(failed >= 1 && failed <= 3, `${failed} failed moves logged in 1.2 s`)
  const written = await raw(url, 'SELECT sum(n) FROM event_stage')
  assert.ok(written > 6)
  await db.run('ALTER TABLE events_away RENAME TO events')
  await mover.settle()
  const all = await stored(db)
  assert.is(all.length, written, 'every staged event moved once the event log is back')
  assert.is(new Set(all).size, written)
  await mover.close()
  await telemetry.close()
  await db.close()
})

t('more events than the mover holds :: read back from the stage, in order, once', async () => {
  const { db, ids } = await metadata()
  const telemetry = await openTelemetry(telemetryUrl())
  const mover = new EventStageMover(db, telemetry, undefined, 10)
  await mover.start()
  for (let k = 0; k < 50; k += 5) {
    const us = [0, 1, 2, 3, 4].map((j) => uplink('tenant-a', ids[(k + j) % 3]!, k + j))
    await mover.write(
      us.flatMap((u) => u.points),
      us.flatMap((u) => u.events),
    )
  }
  await mover.settle()
  const rows = await db.all('SELECT payload FROM events ORDER BY id')
  const ks = rows.map((r) => (JSON.parse(String(r.payload)) as { k: number }).k)
  assert.equal(
    ks,
    Array.from({ length: 50 }, (_, i) => i),
    'every event once, in the order written',
  )
  await mover.close()
  await telemetry.close()
  await db.close()
})

t.run()
