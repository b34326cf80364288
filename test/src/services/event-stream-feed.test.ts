/**
 * The stream's one outbox reader and a resuming client, over an in-memory outbox whose reads the test holds back:
 * events stored while the client catches up are held for it and join after what it read, without gap or repeat;
 * other tenants' events and unwanted types never reach it; a client that falls behind gets `overflow`.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { EventBus } from '../../../src/kernel/events.ts'
import { eventStreamService } from '../../../src/services/event-stream.ts'
import type { MetaStore, OutboxEvent } from '../../../store/types.ts'

const test = suite('live stream reader')

function world() {
  const table: OutboxEvent[] = []
  let gate: Promise<void> | undefined
  let late = false
  let reads = 0
  const add = (tenantID: string, type = 'command.status') =>
    table.push({
      id: table.length + 1,
      tenantID,
      type,
      time: 1,
      deviceID: 'd1',
      data: JSON.stringify({ n: table.length + 1 }),
    } as OutboxEvent)
  const meta = {
    webhooks: {
      lastEventID: async () => table.length,
      eventsSince: async (after: number, limit: number) => {
        reads++
        return table.filter((e) => e.id > after).slice(0, limit)
      },
      eventsAfter: async (
        tenant: string,
        after: number,
        f: { types?: readonly string[] },
        limit: number,
      ) => {
        const read = () =>
          table.filter(
            (e) => e.tenantID === tenant && e.id > after && (!f.types || f.types.includes(e.type)),
          )
        const early = read()
        await gate
        // the read saw the table as it was when it started, or (late) when it ended
        return (late ? read() : early).slice(0, limit)
      },
    },
  } as unknown as MetaStore
  const events = new EventBus()
  const svc = eventStreamService({ meta, events, queueBytes: 4096, log: () => {} })
  return {
    table,
    add,
    reads: () => reads,
    events,
    svc,
    hold(seesLate = false) {
      late = seesLate
      let open!: () => void
      gate = new Promise((r) => (open = r))
      return () => {
        gate = undefined
        open()
      }
    },
  }
}

/** Reads what the subscription has for `ms`, as text. */
async function drain(sub: { next(): Promise<Uint8Array | null> }, ms = 300) {
  let text = ''
  const end = Date.now() + ms
  while (Date.now() < end) {
    const chunk = await Promise.race([
      sub.next(),
      new Promise<'wait'>((r) => setTimeout(() => r('wait'), end - Date.now())),
    ])
    if (chunk === 'wait' || chunk === null) break
    text += new TextDecoder().decode(chunk)
  }
  return text
}
const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))

test('a resume while the reader moves on :: read events, then the held ones, none twice', async () => {
  const w = world()
  for (let i = 0; i < 5; i++) w.add('A')
  w.svc.start()
  const release = w.hold()
  const sub = await w.svc.subscribe({ tenant: 'A', types: [], lastEventID: 2, drop: () => {} })
  // stored while the catch-up read is under way: the reader routes them (held for this client)
  w.add('A')
  w.add('B')
  w.add('A', 'alert.raised')
  w.events.emit('command.status', { tenantID: 'A' } as never)
  await new Promise((r) => setTimeout(r, 50))
  release()
  const text = await drain(sub)
  assert.equal(ids(text), [3, 4, 5, 6, 8])
  // then live
  w.add('A')
  w.events.emit('command.status', { tenantID: 'A' } as never)
  assert.equal(ids(await drain(sub)), [9])
  w.svc.close()
})

test('a catch-up read that saw newer events too :: each once', async () => {
  const w = world()
  for (let i = 0; i < 3; i++) w.add('A')
  w.svc.start()
  const release = w.hold(true)
  const sub = await w.svc.subscribe({
    tenant: 'A',
    types: ['command.status'],
    lastEventID: 0,
    drop: () => {},
  })
  await new Promise((r) => setTimeout(r, 20))
  // stored while the catch-up read is under way, which sees them too; routed by the reader meanwhile
  w.add('A')
  w.add('A')
  w.events.emit('command.status', { tenantID: 'A' } as never)
  await new Promise((r) => setTimeout(r, 50))
  release()
  assert.equal(ids(await drain(sub)), [1, 2, 3, 4, 5])
  w.svc.close()
})

test('a client that does not take its frames :: overflow with the number missed, then the end', async () => {
  const w = world()
  w.svc.start()
  const sub = await w.svc.subscribe({ tenant: 'A', types: [], drop: () => {} })
  await new Promise((r) => setTimeout(r, 20))
  for (let i = 0; i < 100; i++) w.add('A') // ~110 bytes each: the 4 KiB queue takes about 36
  w.events.emit('command.status', { tenantID: 'A' } as never)
  await new Promise((r) => setTimeout(r, 50))
  const text = await drain(sub)
  const got = ids(text)
  const overflow = /event: overflow\ndata: (.*)\n/.exec(text)
  assert.ok(overflow, text)
  const body = JSON.parse(overflow[1]!)
  assert.equal(body, { missed: 100 - got.length, lastEventID: got.at(-1) })
  assert.ok(got.length > 0 && got.length < 100, String(got.length))
  assert.equal(
    got,
    Array.from({ length: got.length }, (_, i) => i + 1),
  )
  assert.is(await sub.next(), null)
  w.svc.close()
})

test('events of a tenant nobody streams here :: no outbox read, and a later client starts after them', async () => {
  const w = world()
  w.svc.start()
  const b = await w.svc.subscribe({ tenant: 'B', types: [], drop: () => {} })
  await new Promise((r) => setTimeout(r, 20))
  const before = w.reads()
  for (let i = 0; i < 3; i++) {
    w.add('A')
    w.events.emit('command.status', { tenantID: 'A' } as never)
  }
  await new Promise((r) => setTimeout(r, 20))
  assert.is(w.reads(), before) // tenant A has no stream on this node: the bus does not wake the reader
  const a = await w.svc.subscribe({ tenant: 'A', types: [], drop: () => {} })
  w.add('A')
  w.add('B')
  w.events.emit('command.status', { tenantID: 'A' } as never)
  await new Promise((r) => setTimeout(r, 50))
  a.close()
  b.close()
  assert.equal(ids(await drain(a)), [4]) // not the three stored before it subscribed
  assert.equal(ids(await drain(b)), [5])
  w.svc.close()
})

test.run()
