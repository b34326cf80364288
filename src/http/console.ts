/**
 * The web console: its sources (src/console/, TSX) bundled with esbuild (buildConsole), its index.html answered for
 * every console path a browser loads (deep links survive a reload). The bundle is loaded on the first request and
 * kept in memory: run from the sources it is built in this process then; compiled (`npm run build` wrote it to
 * dist/console/, beside the server's dist/server/) it is read from there, and esbuild is never loaded. esbuild is
 * imported only here.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'hono'

/** The console page's policy: scripts, styles and calls only from this origin, no inline script. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/**
 * The host a tile template (MAP_TILE_URL) loads images from, as a CSP source (`{s}.` a wildcard label); undefined
 * for `none`.
 */
export function tileSource(template: string): string | undefined {
  if (template === 'none') return undefined
  const url = new URL(template.replace(/\{\w+\}/g, 'a'))
  const host = template.includes('//{s}.') ? url.host.replace(/^a\./, '*.') : url.host
  return `${url.protocol}//${host}`
}

/** CONSOLE_CSP, its images also from the map's tile host (nothing else is allowed more). */
export const consoleCsp = (mapTiles: string) => {
  const tiles = tileSource(mapTiles)
  return tiles ? CONSOLE_CSP.replace("img-src 'self' data:", `$& ${tiles}`) : CONSOLE_CSP
}

/** MAP_TILE_ATTRIBUTION, or OpenStreetMap's for its tiles, else none. */
export function tileAttribution(mapTiles: string, attribution: string | undefined): string {
  if (attribution !== undefined) return attribution
  const source = tileSource(mapTiles)
  return source && /[/.]openstreetmap\.org$/.test(source) ? '© OpenStreetMap contributors' : ''
}

const SOURCES = join(import.meta.dirname, '../console')
/** The bundle `npm run build` wrote, when this module runs from it (a .js file in dist/server/). */
const BUILT = import.meta.url.endsWith('.js')
  ? fileURLToPath(new URL('../console/', import.meta.url))
  : undefined
/** Where esbuild would write (it writes nothing: the names of its outputs are relative to this). */
const OUT = join(SOURCES, 'out')

const escapeAttr = (v: string) =>
  v.replace(/[&"<>]/g, (ch) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[ch]!)

/** What the page tells the console about the service it talks to. */
export interface ConsolePageFacts {
  /** TIMEZONE: wire times are wall-clock times in that zone (src/console/time.ts reads them so). */
  timezone: string
  /** API_VARIANT, whose shapes src/console/api/variant.ts adapts to Variant A's. */
  apiVariant: 'A' | 'B'
  /** MAP_TILE_URL: the map's XYZ tile template, or `none`. */
  mapTiles: string
  /** What the map says of its tiles' source (MAP_TILE_ATTRIBUTION or its default). */
  mapAttribution: string
}

/**
 * The page: the service's facts ride in meta elements (the console reads them there, so no inline script and no
 * extra request).
 */
export const indexHtml = ({
  timezone,
  apiVariant,
  mapTiles,
  mapAttribution,
}: ConsolePageFacts) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="devicecloud-api-variant" content="${apiVariant}">
<meta name="devicecloud-timezone" content="${escapeAttr(timezone)}">
<meta name="devicecloud-map-tiles" content="${escapeAttr(mapTiles)}">
<meta name="devicecloud-map-attribution" content="${escapeAttr(mapAttribution)}">
<title>DeviceCloud</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/app.css">
<script type="module" src="/console/app.js"></script>
</head>
<body><div id="app"></div></body>
</html>
`

interface Asset {
  body: string
  etag: string
  type: string
}

/**
 * The bundle's files by path under /console/: `app.js` and `app.css` (what the sign-in page needs) and the chunks
 * the pages load when first shown (`chunks/<name>-<hash>.js`).
 */
export type ConsoleBundle = Map<string, Asset>

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
})

/**
 * Bundles src/console/main.tsx (JS and the CSS it imports): minified ESM for es2020, split so that each page's code
 * (and uPlot) loads with the page; nothing written to disk.
 */
export async function buildConsole(): Promise<ConsoleBundle> {
  const { build } = await import('esbuild')
  const out = await build({
    entryPoints: { app: join(SOURCES, 'main.tsx') },
    tsconfig: join(SOURCES, 'tsconfig.json'),
    bundle: true,
    splitting: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    outdir: OUT,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'silent',
    legalComments: 'none',
  })
  const files: ConsoleBundle = new Map()
  for (const f of out.outputFiles) {
    const name = f.path.slice(OUT.length + 1).replaceAll('\\', '/')
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)]
    if (type) files.set(name, asset(f.text, type))
  }
  return files
}

/** The bundle as `npm run build` wrote it to `dir` (each file of buildConsole under its name). */
export async function readConsole(dir: string): Promise<ConsoleBundle> {
  const files: ConsoleBundle = new Map()
  for (const name of await readdir(dir, { recursive: true })) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)]
    if (type)
      files.set(name.replaceAll('\\', '/'), asset(await readFile(join(dir, name), 'utf8'), type))
  }
  return files
}

/** Paths that are never console pages, whatever the Accept header says. */
const NOT_CONSOLE = /^\/(api|docs|metrics|healthz|readyz|health|console)(\/|$)/

/**
 * A GET of a console path by a browser loading a page (Accept names text/html); and any GET of `/` that does not
 * ask for JSON (`curl localhost:8080/`, with any other Accept or none, gets the console too).
 */
export function wantsConsolePage(c: Context): boolean {
  const method = c.req.method
  if (method !== 'GET' && method !== 'HEAD') return false
  if (NOT_CONSOLE.test(c.req.path)) return false
  const accept = c.req.header('accept') ?? ''
  if (accept.includes('text/html')) return true
  return c.req.path === '/' && !accept.includes('json')
}

/**
 * The console's handlers: the page (naming the service's facts), and the bundle's files, loaded once on first use
 * (read from the build when this runs compiled, else built).
 */
export function consoleAssets(
  facts: ConsolePageFacts,
  bundle: () => Promise<ConsoleBundle> = BUILT ? () => readConsole(BUILT) : buildConsole,
) {
  const html = indexHtml(facts)
  const csp = consoleCsp(facts.mapTiles)
  let built: Promise<ConsoleBundle> | undefined
  const get = () => {
    built ??= bundle().catch((err: unknown) => {
      built = undefined
      throw err
    })
    return built
  }
  return {
    page(c: Context) {
      c.header('Content-Security-Policy', csp)
      c.header('Cache-Control', 'no-cache')
      return c.html(html)
    },
    /** GET /console/<file>: undefined when the bundle has no such file (the caller's 404). */
    async file(c: Context, name: string): Promise<Response | undefined> {
      const a = (await get()).get(name)
      if (!a) return undefined
      c.header('ETag', a.etag)
      // chunks carry their content hash in their name; app.js and app.css are revalidated
      c.header(
        'Cache-Control',
        name.startsWith('chunks/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      )
      if (c.req.header('if-none-match') === a.etag) return c.body(null, 304)
      c.header('Content-Type', a.type)
      return c.body(a.body)
    },
  }
}
