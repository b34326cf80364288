/**
 * Firmware uploads in a child service: a 200 MiB upload streams to disk (the process's peak RSS grows by a bounded
 * amount, far below the package's size) and is stored whole; a kill -9 in the middle of an upload leaves it unlisted, and the next start that finds
 * its temporary file old removes it.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, utimesSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { childAdmin, killChild } from '../../_support/child-service.ts'
import type { Client } from '../../_support/service.ts'
import { newProduct } from '../routes/devices-helpers.ts'
import { crashScene, startChild } from './_crash.ts'

const test = suite('firmware uploads: memory and kill -9')
const BOUNDARY = 'devicecloud-test-boundary'
const MIB = 1024 * 1024

/** Peak RSS of a process (VmHWM), bytes. */
const peakRss = (pid: number) =>
  1024 * Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])

/**
 * Sends a multipart upload of `size` bytes (a repeating pattern) in 1 MiB writes; with `stopAfter`, stops writing
 * after that many bytes of the file and resolves (the request stays open). Resolves with the answer otherwise.
 */
function send(
  url: string,
  c: Client,
  fields: Record<string, string>,
  size: number,
  stopAfter?: number,
) {
  const head =
    Object.entries(fields)
      .map(
        ([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
      )
      .join('') +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="fw.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n'
  const tail = `\r\n--${BOUNDARY}--\r\n`
  const chunk = Buffer.alloc(MIB, 'firmware!')
  const hash = createHash('sha256')
  return new Promise<{ status: number; body: string; sha256: string }>((resolve, reject) => {
    const req = request(`${url}/api/v1/firmware`, {
      method: 'POST',
      headers: {
        authorization: c.authorization!,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(Buffer.byteLength(head) + size + Buffer.byteLength(tail)),
      },
    })
    req.on('response', (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, body, sha256: hash.digest('hex') }))
    })
    req.on('error', (e) => (stopAfter === undefined ? reject(e) : undefined))
    req.write(head)
    let sent = 0
    const more = () => {
      while (sent < size) {
        if (stopAfter !== undefined && sent >= stopAfter)
          return resolve({ status: 0, body: '', sha256: '' })
        const part = chunk.subarray(0, Math.min(MIB, size - sent))
        hash.update(part)
        sent += part.length
        if (!req.write(part)) return void req.once('drain', more)
      }
      req.end(tail)
    }
    more()
  })
}

/**
 * What a streamed upload may add to the peak RSS: the socket's 64 KiB reads are Buffers outside V8's heap that only a
 * collection frees; V8 would collect for them once they grew by 64 MiB (its external allocation limit), and the upload
 * asks for a young-generation collection every 8 MiB (src/kernel/memory.ts; the child runs with --expose-gc as `npm
 * start` does): 9-13 MiB over a 200 MiB upload, ~66 without it.
 */
const UPLOAD_RSS_BOUND = 32 * MIB

test('200 MiB :: stored whole with its SHA-256; the peak RSS grows by a bound, not by the size', () =>
  crashScene('firmware-rss-', async (s) => {
    s.a = await startChild(s.dir)
    const admin = await childAdmin(s.a.url)
    const p = await newProduct(admin)
    const before = peakRss(s.a.child.pid!)
    const r = await send(s.a.url, admin, { productID: p.productID, version: 'big' }, 200 * MIB)
    assert.is(r.status, 201, r.body)
    const f = JSON.parse(r.body) as { size: number; sha256: string }
    assert.equal([f.size, f.sha256], [200 * MIB, r.sha256])
    const grew = peakRss(s.a.child.pid!) - before
    assert.ok(grew < UPLOAD_RSS_BOUND, `peak RSS grew ${(grew / MIB).toFixed(1)} MiB`)
  }))

test('kill -9 mid-upload :: never listed; an old temporary file is swept at the next start', () =>
  crashScene('firmware-crash-', async (s) => {
    s.a = await startChild(s.dir)
    const admin = await childAdmin(s.a.url)
    const p = await newProduct(admin)
    await send(s.a.url, admin, { productID: p.productID, version: 'half' }, 20 * MIB, 8 * MIB)
    await new Promise((r) => setTimeout(r, 300))
    const dir = join(s.dir, 'firmware')
    const partial = readdirSync(dir).filter((n) => n.endsWith('.partial'))
    assert.is(partial.length, 1, 'the upload was being written')
    await killChild(s.a)
    s.b = await startChild(s.dir)
    const again = await childAdmin(s.b.url)
    assert.equal((await again.get('/api/v1/firmware')).body.items, [])
    assert.equal(
      readdirSync(dir),
      partial,
      'a recent temporary file is left (another node may write it)',
    )
    await killChild(s.b)
    const hourAgo = new Date(Date.now() - 3600_000)
    utimesSync(join(dir, partial[0]!), hourAgo, hourAgo)
    s.b = await startChild(s.dir)
    assert.equal(readdirSync(dir), [])
  }))

test.run()
