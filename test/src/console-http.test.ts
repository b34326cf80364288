/**
 * The console over HTTP (no browser): a browser loading any console path gets the app's page with a strict CSP;
 * the bundle is built once and served with an ETag; every other request keeps the JSON 404.
 */
import { gzipSync } from 'node:zlib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../_support/service.ts'
import { CONSOLE_CSP } from '../../src/http/console.ts'

let t: TestService
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }
const json = { accept: 'application/json' }

const web = suite('console over HTTP')
web.before(async () => {
  t = await startTestService()
})
web.after(() => t.close())

const get = (path: string, headers: Record<string, string>) =>
  t.anon.call('GET', path, undefined, headers)

web('/, /devices/1, /signin by a browser :: the page, strict CSP, no inline script', async () => {
  for (const path of ['/', '/devices/1', '/signin', '/devices/']) {
    const r = await get(path, html)
    assert.is(r.status, 200, path)
    assert.match(r.headers.get('content-type')!, /^text\/html/)
    assert.is(r.headers.get('content-security-policy'), CONSOLE_CSP)
    assert.ok(r.text.includes('<script type="module" src="/console/app.js"></script>'), r.text)
    assert.ok(r.text.includes('<link rel="stylesheet" href="/console/app.css">'))
    assert.equal(r.text.match(/<script/g), ['<script'])
  }
  assert.is(
    CONSOLE_CSP,
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
      "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  )
})

web('a console path without text/html, or an API path :: the JSON 404', async () => {
  for (const [path, headers] of [
    ['/devices/1', json],
    ['/nope', {}],
    ['/api/v1/nope', html],
    ['/console/nope.js', html],
    ['/metrics/x', html],
  ] as const) {
    const r = await get(path, headers)
    assert.is(r.status, 404, path)
    assert.equal(r.body, {
      errorCode: 'DATA_NOT_FOUND',
      message: r.body.message,
      errors: { url: `no such path: ${path}` },
    })
  }
  const post = await t.anon.call('POST', '/devices', {}, html)
  assert.is(post.status, 404)
  assert.is(post.body.errorCode, 'DATA_NOT_FOUND')
})

web('/healthz, /docs, /api/v1 :: keep their answers', async () => {
  assert.is((await get('/healthz', html)).status, 200)
  const docs = await get('/docs', html)
  assert.is(docs.status, 200)
  assert.ok(docs.headers.get('content-security-policy')!.startsWith("default-src 'none'"))
  assert.is((await get('/api/v1/devices', html)).status, 401)
})

web('/console/app.js and app.css :: built bundle, ETag, 304 on If-None-Match', async () => {
  const js = await get('/console/app.js', {})
  assert.is(js.status, 200)
  assert.match(js.headers.get('content-type')!, /^text\/javascript/)
  assert.ok(js.text.length > 1000 && !js.text.includes('jsxImportSource'))
  const etag = js.headers.get('etag')!
  assert.match(etag, /^"[\w-]{22}"$/)
  const again = await get('/console/app.js', { 'if-none-match': etag })
  assert.is(again.status, 304)
  const css = await get('/console/app.css', {})
  assert.is(css.status, 200)
  assert.match(css.headers.get('content-type')!, /^text\/css/)
  assert.ok(css.text.includes('.badge'))
  // figure for the README: the bundle's gzipped size
  const kb = (gzipSync(js.text).length + gzipSync(css.text).length) / 1024
  assert.ok(kb < 100, `${kb.toFixed(1)} KB gzipped`)
})

web.run()
