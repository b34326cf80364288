/**
 * The console over HTTP (no browser): a browser loading any console path gets the app's page with a strict CSP;
 * the bundle is built once and served with an ETag; every other request keeps the JSON 404.
 */
import { gzipSync } from 'node:zlib'
import * as assert from 'uvu/assert'
import type { TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { CONSOLE_CSP, consoleCsp } from '../../src/http/console.ts'

let t: TestService
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }
const json = { accept: 'application/json' }

const web = serviceSuite('console over HTTP', (svc) => (t = svc))

const get = (path: string, headers: Record<string, string>) =>
  t.anon.call('GET', path, undefined, headers)

/** The policy of the console's page under the default MAP_TILE_URL: images from OpenStreetMap's tiles too. */
const OSM_CSP = CONSOLE_CSP.replace(
  "img-src 'self' data:",
  "img-src 'self' data: https://tile.openstreetmap.org",
)

web('/, /devices/1, /signin by a browser :: the page, strict CSP, no inline script', async () => {
  for (const path of ['/', '/devices/1', '/signin', '/devices/']) {
    const r = await get(path, html)
    assert.is(r.status, 200, path)
    assert.match(r.headers.get('content-type')!, /^text\/html/)
    assert.is(r.headers.get('content-security-policy'), OSM_CSP)
    assert.ok(r.text.includes('<script type="module" src="/console/app.js"></script>'), r.text)
    assert.ok(r.text.includes('<link rel="stylesheet" href="/console/app.css">'))
    assert.ok(r.text.includes('<meta name="devicecloud-api-variant" content="A">'), 'the variant')
    assert.equal(r.text.match(/<script/g), ['<script'])
    assert.ok(
      r.text.includes(
        '<meta name="devicecloud-map-tiles" content="https://tile.openstreetmap.org/{z}/{x}/{y}.png">',
      ),
      'the map tiles',
    )
    assert.ok(
      r.text.includes(
        '<meta name="devicecloud-map-attribution" content="© OpenStreetMap contributors">',
      ),
      'their attribution',
    )
  }
  assert.is(
    CONSOLE_CSP,
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
      "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  )
  // the map's tile host is the one thing MAP_TILE_URL adds; `none` adds nothing
  assert.is(consoleCsp('https://tile.openstreetmap.org/{z}/{x}/{y}.png'), OSM_CSP)
  assert.is(consoleCsp('none'), CONSOLE_CSP)
  assert.is(
    consoleCsp('https://{s}.tiles.example.com:8443/map/{z}/{x}/{y}@2x.png'),
    CONSOLE_CSP.replace('data:', 'data: https://*.tiles.example.com:8443'),
  )
})

web(
  'GET / as curl asks (no Accept, */*) :: the console page; asking for JSON only :: the JSON 404',
  async () => {
    for (const headers of [
      {},
      { accept: '*/*' },
      { 'user-agent': 'curl/8.5.0', accept: '*/*' },
    ] as Array<Record<string, string>>) {
      const r = await get('/', headers)
      assert.is(r.status, 200, JSON.stringify(headers))
      assert.match(r.headers.get('content-type')!, /^text\/html/)
      assert.ok(r.text.includes('/console/app.js'))
    }
    const head = await t.anon.call('HEAD', '/', undefined, {})
    assert.is(head.status, 200)
    const r = await get('/', json)
    assert.is(r.status, 404)
    assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
  },
)

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
  assert.is(js.headers.get('cache-control'), 'no-cache')
  assert.ok(js.text.length > 1000 && !js.text.includes('jsxImportSource'))
  const etag = js.headers.get('etag')!
  assert.match(etag, /^"[\w-]{22}"$/)
  const again = await get('/console/app.js', { 'if-none-match': etag })
  assert.is(again.status, 304)
  const css = await get('/console/app.css', {})
  assert.is(css.status, 200)
  assert.match(css.headers.get('content-type')!, /^text\/css/)
  assert.ok(css.text.includes('.badge') && css.text.includes('.uplot'))
})

/** The chunks a module imports statically (`from"./chunks/x.js"`) and lazily (`import("./chunks/x.js")`). */
const importsOf = (code: string) => ({
  now: [...code.matchAll(/(?:from|import)\s*"\.\/((?:chunks\/)?[\w-]+\.js)"/g)].map(
    (m) => m[1] ?? '',
  ),
  later: [...code.matchAll(/import\(\s*"\.\/((?:chunks\/)?[\w-]+\.js)"\s*\)/g)].map(
    (m) => m[1] ?? '',
  ),
})

web(
  'the bundle is split :: sign-in loads only the shell (<= 40 KB gzipped), pages load as chunks',
  async () => {
    const sizes = new Map<string, number>()
    const fetchModule = async (name: string): Promise<string> => {
      const r = await get(`/console/${name}`, {})
      assert.is(r.status, 200, name)
      sizes.set(name, gzipSync(r.text).length)
      return r.text
    }
    const css = await get('/console/app.css', {})
    const cssKb = gzipSync(css.text).length / 1024
    // what the sign-in page loads: app.js, what it imports statically, app.css
    const shell = new Set<string>()
    const lazy = new Set<string>()
    const walk = async (name: string, into: Set<string>) => {
      if (shell.has(name) || into.has(name)) return
      into.add(name)
      const code = await fetchModule(
        name.replace(/^(?!chunks\/)/, name === 'app.js' ? '' : 'chunks/'),
      )
      const { now, later } = importsOf(code)
      for (const n of now) await walk(n.startsWith('chunks/') ? n : `chunks/${n}`, into)
      for (const n of later) lazy.add(n.startsWith('chunks/') ? n : `chunks/${n}`)
    }
    await walk('app.js', shell)
    const kb = (names: Iterable<string>) =>
      [...names].reduce((s, n) => s + (sizes.get(n) ?? 0), 0) / 1024
    const signIn = kb(shell) + cssKb
    assert.ok(lazy.size >= 4, `lazy chunks: ${[...lazy].join(',')}`)
    const pages = new Set<string>()
    for (const n of lazy) await walk(n, pages)
    const whole = signIn + kb(pages)
    console.log(
      `console bundle: sign-in ${signIn.toFixed(1)} KB, whole ${whole.toFixed(1)} KB gzipped`,
    )
    assert.ok(signIn <= 40, `sign-in ${signIn.toFixed(1)} KB gzipped`)
    // the budget of the whole console: 160 KB gzipped (firmware pages took it past the first budget of 100)
    assert.ok(whole <= 160, `whole ${whole.toFixed(1)} KB gzipped`)
    // a chunk's name carries its hash: cached for good
    const chunk = await get(`/console/${[...lazy][0]}`, {})
    assert.is(chunk.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    const missing = await get('/console/chunks/nope-AAAA.js', {})
    assert.is(missing.status, 404)
    assert.is(missing.body.errorCode, 'DATA_NOT_FOUND')
  },
)

web.run()
