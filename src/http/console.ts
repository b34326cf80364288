/**
 * The web console: its sources (src/console/, TSX) bundled with esbuild in this process on the first request and
 * kept in memory (one build per process), its index.html answered for every console path a browser loads (deep
 * links survive a reload). esbuild is imported only here.
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { build } from 'esbuild'
import type { Context } from 'hono'

/** The console page's policy: scripts, styles and calls only from this origin, no inline script. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

const SOURCES = join(import.meta.dirname, '../console')

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
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

/** The bundle's two files. */
export interface ConsoleBundle {
  js: Asset
  css: Asset
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
})

/** Bundles src/console/main.tsx (JS and the CSS it imports): minified ESM for es2020, nothing written to disk. */
export async function buildConsole(): Promise<ConsoleBundle> {
  const out = await build({
    entryPoints: [join(SOURCES, 'main.tsx')],
    tsconfig: join(SOURCES, 'tsconfig.json'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    outdir: 'out',
    logLevel: 'silent',
    legalComments: 'none',
  })
  const file = (ext: string) => out.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? ''
  return {
    js: asset(file('.js'), 'text/javascript; charset=utf-8'),
    css: asset(file('.css'), 'text/css; charset=utf-8'),
  }
}

/** Paths that are never console pages, whatever the Accept header says. */
const NOT_CONSOLE = /^\/(api|docs|metrics|healthz|readyz|health|console)(\/|$)/

/** A GET of a console path by a browser loading a page (Accept names text/html). */
export function wantsConsolePage(c: Context): boolean {
  const method = c.req.method
  if (method !== 'GET' && method !== 'HEAD') return false
  if (NOT_CONSOLE.test(c.req.path)) return false
  return (c.req.header('accept') ?? '').includes('text/html')
}

/** The console's handlers: the page, and the bundle built once on first use. */
export function consoleAssets(bundle: () => Promise<ConsoleBundle> = buildConsole) {
  let built: Promise<ConsoleBundle> | undefined
  const get = () => {
    built ??= bundle().catch((err: unknown) => {
      built = undefined
      throw err
    })
    return built
  }
  const serve = async (c: Context, which: 'js' | 'css') => {
    const a = (await get())[which]
    c.header('ETag', a.etag)
    c.header('Cache-Control', 'no-cache')
    if (c.req.header('if-none-match') === a.etag) return c.body(null, 304)
    c.header('Content-Type', a.type)
    return c.body(a.body)
  }
  return {
    page(c: Context) {
      c.header('Content-Security-Policy', CONSOLE_CSP)
      c.header('Cache-Control', 'no-cache')
      return c.html(INDEX_HTML)
    },
    js: (c: Context) => serve(c, 'js'),
    css: (c: Context) => serve(c, 'css'),
  }
}
