/**
 * Firmware packages over the real service: uploads streamed to DATA_DIR/firmware with their SHA-256 and size, the
 * checks of §15 (a wrong sha256, a taken version, the size limit, a missing file), two tenants, deletes that take the
 * file along, and devices downloading their own product's packages whole or by Range (resumed), never another's.
 */
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import * as assert from 'uvu/assert'
import type { Client, TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { TIME } from '../../_support/asserts.ts'
import { basic } from './_ingest.ts'
import { mqttBody, newDevice, newProduct } from './devices-helpers.ts'

let t: TestService
const MAX = 256 * 1024
const test = serviceSuite('firmware packages', (svc) => (t = svc), {
  FIRMWARE_MAX_BYTES: String(MAX),
})

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** POST /firmware as `c` with the fields and (when given) the file's bytes, the file part last. */
async function upload(c: Client, fields: Record<string, string>, bytes?: Uint8Array) {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  if (bytes) form.append('file', new Blob([bytes]), 'fw.bin')
  const res = await fetch(`${t.url}/api/v1/firmware`, {
    method: 'POST',
    headers: { authorization: c.authorization! },
    body: form,
  })
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text), text }
}

const files = () => readdirSync(join(t.dir, 'firmware'))

test('upload :: 201 with firmwareID, size and SHA-256; listed, read; the file is in DATA_DIR/firmware', async () => {
  const p = await newProduct(t.admin)
  const bytes = randomBytes(100_000)
  const r = await upload(
    t.admin,
    { productID: p.productID, version: '1.0.0', description: 'first' },
    bytes,
  )
  assert.is(r.status, 201, r.text)
  assert.match(r.body.firmwareID, /^[A-Za-z0-9]{8}$/)
  assert.equal(
    [r.body.productID, r.body.version, r.body.size, r.body.sha256, r.body.description],
    [p.productID, '1.0.0', 100_000, sha(bytes), 'first'],
  )
  assert.match(r.body.createAt, TIME)
  const detail = await t.admin.get(`/api/v1/firmware/${r.body.id}`)
  assert.equal(detail.body, r.body)
  const list = await t.admin.get(`/api/v1/firmware?productID=${p.productID}`)
  assert.equal(
    list.body.items.map((f: { id: number }) => f.id),
    [r.body.id],
  )
  assert.ok(files().some((f) => f.endsWith('.bin')))
  assert.not.ok(files().some((f) => f.endsWith('.partial')))
})

test('refusals :: a wrong sha256 422, a taken version 400, over the limit 413, no file 422; nothing kept', async () => {
  const p = await newProduct(t.admin)
  const bytes = randomBytes(1000)
  const before = files().length
  const wrong = await upload(
    t.admin,
    { productID: p.productID, version: '2', sha256: sha(randomBytes(8)) },
    bytes,
  )
  assert.is(wrong.status, 422, wrong.text)
  assert.ok(wrong.body.errors.sha256)
  const ok = await upload(
    t.admin,
    { productID: p.productID, version: '2', sha256: sha(bytes).toUpperCase() },
    bytes,
  )
  assert.is(ok.status, 201, ok.text)
  const taken = await upload(t.admin, { productID: p.productID, version: '2' }, bytes)
  assert.is(taken.status, 400)
  assert.is(taken.body.errorCode, 'DATA_EXISTED')
  assert.ok(taken.body.errors.version)
  const big = await upload(t.admin, { productID: p.productID, version: '3' }, randomBytes(MAX + 1))
  assert.is(big.status, 413, big.text)
  const none = await upload(t.admin, { productID: p.productID, version: '4' })
  assert.is(none.status, 422)
  assert.ok(none.body.errors.file)
  const bad = await upload(t.admin, { productID: 'nope', version: '5' }, bytes)
  assert.is(bad.status, 404)
  assert.ok(bad.body.errors.productID)
  const json = await t.admin.post('/api/v1/firmware', { productID: p.productID })
  assert.is(json.status, 400)
  assert.is(files().length, before + 1, 'only the accepted package has a file')
})

test('a taken version named before the file :: refused before the bytes arrive; the connection closed; nothing kept', async () => {
  const p = await newProduct(t.admin)
  assert.is(
    (await upload(t.admin, { productID: p.productID, version: '1' }, randomBytes(10))).status,
    201,
  )
  const before = files().length
  const boundary = 'b0b0'
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="productID"\r\n\r\n${p.productID}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="version"\r\n\r\n1\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="fw.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n'
  const url = new URL(`${t.url}/api/v1/firmware`)
  // a body announced at 200 KiB of which only the head and 1 KiB are ever sent: the answer comes anyway
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: t.admin.authorization!,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + 200 * 1024),
        },
      },
      (res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += String(d)))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      },
    )
    req.on('error', reject)
    req.write(head)
    req.write(randomBytes(1024))
  })
  assert.is(answer.status, 400, answer.body)
  const parsed = JSON.parse(answer.body)
  assert.is(parsed.errorCode, 'DATA_EXISTED')
  assert.ok(parsed.errors.version)
  assert.is(files().length, before, 'no file kept')
  assert.not.ok(
    files().some((f) => f.endsWith('.partial')),
    'no temporary file left',
  )
})

test('hostile bodies :: a malformed multipart body (two errors in one part) is 400; the service goes on', async () => {
  const boundary = 'x0x0'
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="b\u00ff\u0001"\r\nX:\r\n\u0000\r\n\r\nw\r\n` +
    `--${boundary}\r\nbroken header without a colon\r\n\r\nz\r\n--${boundary}--\r\n`
  const r = await t.admin.call('POST', '/api/v1/firmware', body, {
    'content-type': `multipart/form-data; boundary=${boundary}`,
  })
  assert.is(r.status, 400, r.text)
  assert.ok(r.body.errors.body)
  const cut = await t.admin.call(
    'POST',
    '/api/v1/firmware',
    `--${boundary}\r\nContent-Disposition: form-da`,
    {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
  )
  assert.is(cut.status, 400, cut.text)
  assert.is((await t.anon.get('/healthz')).status, 200)
})

test('two tenants :: another tenant neither lists, reads, deletes nor uploads to the product', async () => {
  const p = await newProduct(t.admin)
  const mine = await upload(t.admin, { productID: p.productID, version: '1' }, randomBytes(10))
  const other = await t.newTenant()
  assert.is((await other.get(`/api/v1/firmware/${mine.body.id}`)).status, 404)
  assert.equal((await other.get('/api/v1/firmware')).body.items, [])
  assert.is((await other.del(`/api/v1/firmware?ids=${mine.body.id}`)).status, 404)
  const theirs = await upload(other, { productID: p.productID, version: '9' }, randomBytes(10))
  assert.is(theirs.status, 404)
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.get(`/api/v1/firmware/${mine.body.id}`)).status, 200)
  assert.is(
    (await upload(viewer, { productID: p.productID, version: '8' }, randomBytes(10))).status,
    403,
  )
})

test('download :: whole, by Range (a resumed download), 416 past the end; ETag the SHA-256', async () => {
  const p = await newProduct(t.admin)
  const d = await newDevice(t.admin, mqttBody(p.productID))
  const bytes = randomBytes(200_000)
  const f = (await upload(t.admin, { productID: p.productID, version: '7' }, bytes)).body
  const url = `${t.url}/api/v1/ingest/firmware/${f.firmwareID}`
  const auth = { authorization: basic(d) }
  const whole = await fetch(url, { headers: auth })
  assert.is(whole.status, 200)
  assert.is(whole.headers.get('etag'), `"${sha(bytes)}"`)
  assert.is(whole.headers.get('accept-ranges'), 'bytes')
  assert.is(whole.headers.get('content-length'), '200000')
  // written straight to the socket, with the headers every answer carries
  assert.is(whole.headers.get('x-content-type-options'), 'nosniff')
  assert.match(whole.headers.get('x-request-id') ?? '', /\S/)
  assert.ok(Buffer.from(await whole.arrayBuffer()).equals(bytes))
  // a download cut after 70,000 bytes, resumed from there
  const first = await fetch(url, { headers: { ...auth, range: 'bytes=0-69999' } })
  assert.is(first.status, 206)
  assert.is(first.headers.get('content-range'), 'bytes 0-69999/200000')
  const rest = await fetch(url, { headers: { ...auth, range: 'bytes=70000-' } })
  assert.is(rest.status, 206)
  assert.is(rest.headers.get('content-length'), '130000')
  const joined = Buffer.concat([
    Buffer.from(await first.arrayBuffer()),
    Buffer.from(await rest.arrayBuffer()),
  ])
  assert.is(sha(joined), sha(bytes))
  const tail = await fetch(url, { headers: { ...auth, range: 'bytes=-10' } })
  assert.ok(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(-10)))
  const past = await fetch(url, { headers: { ...auth, range: 'bytes=200000-' } })
  assert.is(past.status, 416)
  assert.is(past.headers.get('content-range'), 'bytes */200000')
  await past.arrayBuffer()
  // a download dropped at once leaves the service serving the next one
  const controller = new AbortController()
  const dropped = await fetch(url, { headers: auth, signal: controller.signal })
  controller.abort()
  await dropped.arrayBuffer().catch(() => undefined)
  const after = await fetch(url, { headers: auth })
  assert.is(after.status, 200)
  assert.ok(Buffer.from(await after.arrayBuffer()).equals(bytes))
})

test('download :: a device of another product or tenant, an API caller, no credentials: refused', async () => {
  const p = await newProduct(t.admin)
  const f = (await upload(t.admin, { productID: p.productID, version: '1' }, randomBytes(100))).body
  const url = `${t.url}/api/v1/ingest/firmware/${f.firmwareID}`
  const elsewhere = await newDevice(t.admin, mqttBody((await newProduct(t.admin)).productID))
  const other = await t.newTenant()
  const foreign = await newDevice(other, mqttBody((await newProduct(other)).productID))
  for (const d of [elsewhere, foreign]) {
    const r = await fetch(url, { headers: { authorization: basic(d) } })
    assert.is(r.status, 404)
    assert.is(((await r.json()) as { errorCode: string }).errorCode, 'DATA_NOT_FOUND')
  }
  assert.is((await fetch(url, { headers: { authorization: t.admin.authorization! } })).status, 403)
  assert.is((await fetch(url)).status, 401)
})

test('delete :: the row and its file go; a product with packages is not deleted', async () => {
  const p = await newProduct(t.admin)
  const f = (await upload(t.admin, { productID: p.productID, version: '1' }, randomBytes(100))).body
  const refused = await t.admin.del(`/api/v1/products?ids=${p.id}`)
  assert.is(refused.status, 400)
  assert.is(refused.body.errorCode, 'REFERENCED_ERROR')
  const before = files().length
  assert.is((await t.admin.del(`/api/v1/firmware?ids=${f.id}`)).status, 204)
  assert.is((await t.admin.get(`/api/v1/firmware/${f.id}`)).status, 404)
  assert.is(files().length, before - 1)
  assert.ok(existsSync(join(t.dir, 'firmware')))
})

test.run()
