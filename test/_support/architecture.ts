/**
 * The dependency rules (which folder may import which, and each driver only in its home folder) as a pure
 * checker over a list of imports, and the reader that lists the imports of the tree. test/architecture.test.ts
 * runs both.
 *
 * Imports are read with TypeScript's own pre-processor (`ts.preProcessFile`): `import ... from`, `import '...'`,
 * `export ... from` and `import('...')` with a literal, never text inside comments, strings or templates.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, posix, relative, sep } from 'node:path'
import ts from 'typescript'

/** The folders whose files are checked (test/ and bench/ are not). */
export const CHECKED = ['src', 'ingest', 'query', 'store'] as const

/** One import of one file. */
export interface ImportRef {
  /** The importing file, relative to the repository root, `/` separators. */
  file: string
  /** The specifier as written. */
  specifier: string
  /** A relative specifier resolved to a repository path (`store/libsql/db.ts`); undefined for packages. */
  path?: string
  /** The package a bare specifier names: `hono` for `hono/body-limit`, `@hono/node-server`, `node:fs`. */
  pkg?: string
  /** Every import of this specifier in the file is `import type` / `export type` (erased when compiled). */
  typeOnly?: boolean
}

export type Rule =
  | 'http layer imports a store adapter'
  | 'ingest or query imports a store adapter'
  | 'routes import ingest internals'
  | 'services import ingest'
  | 'lower folder imports src outside src/kernel'
  | 'driver imported outside its home'
  | 'folders import each other in a circle'
  | 'files import each other in a circle'
  | 'console imports the server'
  | 'domain code imports the HTTP error'
  | 'services import an API variant'
  | 'wire shapes import services'
  | 'worker imports the network'
  | 'the pipeline imports a broker'
  | 'the brokers import each other'
  | 'metadata and time series import each other'

export const RULES: readonly Rule[] = [
  'http layer imports a store adapter',
  'ingest or query imports a store adapter',
  'routes import ingest internals',
  'services import ingest',
  'lower folder imports src outside src/kernel',
  'driver imported outside its home',
  'folders import each other in a circle',
  'files import each other in a circle',
  'console imports the server',
  'domain code imports the HTTP error',
  'services import an API variant',
  'wire shapes import services',
  'worker imports the network',
  'the pipeline imports a broker',
  'the brokers import each other',
  'metadata and time series import each other',
]

/** One import breaking one rule. */
export interface Violation {
  rule: Rule
  file: string
  specifier: string
  /** What is wrong, e.g. the package's home or the circle. */
  why: string
}

const under = (path: string | undefined, ...dirs: string[]) =>
  path !== undefined && dirs.some((d) => path.startsWith(`${d}/`))

/** The store adapters: metadata in libSQL, the embedded time-series engine, InfluxDB. */
const ADAPTERS = ['store/libsql', 'store/tsdb', 'store/influx']

/** Where worker threads start (their entries and what spawns them): no network code may load there. */
const WORKERS = ['store/libsql/worker', 'store/tsdb/worker']
/** The network side a worker thread must not load: HTTP, the broker, MQTT clients, sockets. */
const isNetworkPackage = (pkg: string) =>
  pkg === 'hono' ||
  pkg.startsWith('@hono/') ||
  ['aedes', 'mqtt', 'ws'].includes(pkg) ||
  pkg.startsWith('aedes-')
/** The two brokers' rooms: each calls into the pipeline (ingest/), neither the other. */
const BROKERS = ['ingest/broker', 'ingest/external']
const isNetworkModule = (path: string) => under(path, 'src/http', 'src/routes', ...BROKERS)

/**
 * What the embedded time-series engine (store/tsdb/) may use of store/libsql/: the driver's layer (connections,
 * its errors, vacuum) and the worker threads' machinery, never a metadata repository.
 */
const isDriverLayer = (path: string) =>
  ['store/libsql/db.ts', 'store/libsql/sql-errors.ts', 'store/libsql/vacuum.ts'].includes(path) ||
  under(path, 'store/libsql/worker')

/** Variant B's room (its schemas, serializers and route adapters): it maps Variant B onto the services. */
const VARIANT_B = 'src/variant-b'
const isVariantB = (path: string | undefined) => under(path, VARIANT_B)

/**
 * Each driver package and the only folder (or file) that may import it (hono, which has folders it may not enter,
 * apart). Metrics and logs are behind one module each: the rest of the code uses their interfaces.
 */
const HOMES: ReadonlyArray<{ match: (pkg: string) => boolean; home: string | readonly string[] }> =
  [
    { match: (p) => p === '@libsql/client' || p === 'libsql', home: 'store/libsql' },
    { match: (p) => p === 'node:worker_threads' || p === 'worker_threads', home: WORKERS },
    { match: (p) => p === '@influxdata/influxdb-client', home: 'store/influx' },
    { match: (p) => p === 'aedes' || p.startsWith('aedes-') || p === 'ws', home: 'ingest/broker' },
    { match: (p) => p === 'mqtt', home: 'ingest/external' },
    { match: (p) => p === 'prom-client', home: 'src/kernel/metrics.ts' },
    { match: (p) => p === 'pino' || p.startsWith('pino-'), home: 'src/kernel/log.ts' },
    { match: (p) => p === 'esbuild', home: 'src/http/console.ts' },
    { match: (p) => p === 'busboy', home: 'src/http/multipart.ts' },
  ]
/** The packages the browser console (src/console/) may bundle. */
const CONSOLE_PACKAGES = ['preact', '@preact/signals', 'uplot']
/** A file home names itself; a folder home gets its trailing `/`. */
const homeName = (home: string) => (home.endsWith('.ts') ? home : `${home}/`)
const isHono = (pkg: string) => pkg === 'hono' || pkg.startsWith('@hono/')

/** The rules one import breaks, apart from circles (they need the whole graph). */
function fileRules(i: ImportRef): Array<{ rule: Rule; why: string }> {
  const { file, path, pkg } = i
  const out: Array<{ rule: Rule; why: string }> = []
  if (under(file, 'src/routes', 'src/http') && under(path, ...ADAPTERS))
    out.push({ rule: 'http layer imports a store adapter', why: `${path}: use the store ports` })
  if (under(file, 'ingest', 'query') && under(path, ...ADAPTERS))
    out.push({
      rule: 'ingest or query imports a store adapter',
      why: `${path}: use the store ports`,
    })
  if (under(file, 'src/routes') && under(path, 'ingest') && path !== 'ingest/types.ts')
    out.push({ rule: 'routes import ingest internals', why: `${path}: only ingest/types.ts` })
  if (under(file, 'src/services') && under(path, 'ingest'))
    out.push({
      rule: 'services import ingest',
      why: `${path}: declare the port in src/services/ports.ts, topic rules are in src/kernel/topics.ts`,
    })
  if (under(file, 'ingest', 'query', 'store') && under(path, 'src') && !under(path, 'src/kernel'))
    out.push({ rule: 'lower folder imports src outside src/kernel', why: `${path}` })
  if (under(file, 'src/services', 'src/rules') && path === 'src/errors.ts')
    out.push({
      rule: 'domain code imports the HTTP error',
      why: `${path}: throw the domain errors of src/kernel/errors.ts`,
    })
  if (under(file, 'src/services') && isVariantB(path))
    out.push({
      rule: 'services import an API variant',
      why: `${path}: services take Variant A's typed inputs; map Variant B in ${VARIANT_B}/`,
    })
  if (
    under(file, 'src/wire', `${VARIANT_B}/wire`) &&
    (under(path, 'src/services') || under(path, `${VARIANT_B}/http`))
  )
    out.push({
      rule: 'wire shapes import services',
      why: `${path}: shapes are schemas and serializers; calls belong at the route edge`,
    })
  if (under(file, 'src/console')) {
    if (pkg !== undefined && !CONSOLE_PACKAGES.includes(pkg))
      out.push({
        rule: 'console imports the server',
        why: `${pkg}: only ${CONSOLE_PACKAGES.join(', ')}`,
      })
    if (path !== undefined && !under(path, 'src/console') && !i.typeOnly)
      out.push({ rule: 'console imports the server', why: `${path}: import type only` })
  }
  if (
    under(file, ...WORKERS) &&
    (pkg !== undefined ? isNetworkPackage(pkg) : isNetworkModule(path!))
  )
    out.push({
      rule: 'worker imports the network',
      why: `${pkg ?? path}: worker threads run storage and computation only`,
    })
  if (under(file, 'ingest') && !under(file, ...BROKERS) && under(path, ...BROKERS))
    out.push({
      rule: 'the pipeline imports a broker',
      why: `${path}: a broker calls the pipeline (ingest/types.ts Pipeline), never the other way`,
    })
  const fileBroker = BROKERS.find((b) => under(file, b))
  const pathBroker = BROKERS.find((b) => under(path, b))
  if (fileBroker && pathBroker && fileBroker !== pathBroker)
    out.push({
      rule: 'the brokers import each other',
      why: `${path}: what both need lives in ingest/ (the gate, identity, types)`,
    })
  if (under(file, 'store/tsdb') && under(path, 'store/libsql') && !isDriverLayer(path!))
    out.push({
      rule: 'metadata and time series import each other',
      why: `${path}: the time-series engine uses store/libsql's driver layer only (db.ts, sql-errors.ts, vacuum.ts, worker/)`,
    })
  if (under(file, 'store/libsql') && under(path, 'store/tsdb'))
    out.push({
      rule: 'metadata and time series import each other',
      why: `${path}: metadata repositories never reach into the time-series engine`,
    })
  if (pkg === undefined) return out
  const driver = HOMES.find((h) => h.match(pkg))
  const homes = driver ? [driver.home].flat() : []
  if (driver && !homes.some((h) => file === h || under(file, h)))
    out.push({
      rule: 'driver imported outside its home',
      why: `${pkg}: only in ${homes.map(homeName).join(' or ')}`,
    })
  if (isHono(pkg) && under(file, 'ingest', 'query', 'store'))
    out.push({
      rule: 'driver imported outside its home',
      why: `${pkg}: not in ingest, query, store`,
    })
  return out
}

/** The node of the folder graph a repository path belongs to (src/kernel is its own), if a checked one. */
export function folderOf(path: string): string | undefined {
  if (under(path, 'src/kernel')) return 'src/kernel'
  return CHECKED.find((d) => under(path, d))
}

/** Every elementary circle of a small directed graph, each once, starting at its least node. */
export function circles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const nodes = [
    ...new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]),
  ].sort()
  const out: string[][] = []
  const walk = (start: string, path: string[]) => {
    for (const next of edges.get(path[path.length - 1]!) ?? []) {
      if (next === start) out.push([...path])
      else if (next > start && !path.includes(next)) walk(start, [...path, next])
    }
  }
  for (const n of nodes) walk(n, [n])
  return out
}

/** The folder circles and every import forming one of their edges. */
function circleViolations(imports: readonly ImportRef[]): Violation[] {
  const byEdge = new Map<string, ImportRef[]>()
  const edges = new Map<string, Set<string>>()
  for (const i of imports) {
    const [a, b] = [folderOf(i.file), i.path === undefined ? undefined : folderOf(i.path)]
    if (!a || !b || a === b) continue
    if (!edges.has(a)) edges.set(a, new Set())
    edges.get(a)!.add(b)
    const key = `${a} → ${b}`
    byEdge.set(key, [...(byEdge.get(key) ?? []), i])
  }
  return circles(edges).flatMap((c) => {
    const circle = [...c, c[0]!].join(' → ')
    return c.flatMap((a, k) =>
      (byEdge.get(`${a} → ${c[(k + 1) % c.length]!}`) ?? []).map((i) => ({
        rule: 'folders import each other in a circle' as const,
        file: i.file,
        specifier: i.specifier,
        why: circle,
      })),
    )
  })
}

/**
 * The groups of nodes that reach each other (strongly connected components of more than one node, or one node
 * importing itself), each sorted, in order of their least node. Every circle of the graph lies inside one group.
 */
export function circleGroups(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const group: string[] = []
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w)
      group.push(w)
      if (w === v) break
    }
    if (group.length > 1 || edges.get(v)?.has(v)) out.push(group.sort())
  }
  for (const n of [...edges.keys()].sort()) if (!index.has(n)) visit(n)
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1))
}

/** A shortest path from `from` to `to` along `edges` (breadth first), both ends included; [] when none. */
function shortestPath(edges: ReadonlyMap<string, ReadonlySet<string>>, from: string, to: string) {
  const prev = new Map<string, string>([[from, from]])
  for (let queue = [from]; queue.length > 0;) {
    const next: string[] = []
    for (const v of queue)
      for (const w of [...(edges.get(v) ?? [])].sort()) {
        if (prev.has(w)) continue
        prev.set(w, v)
        next.push(w)
      }
    queue = next
  }
  if (!prev.has(to)) return []
  const path = [to]
  while (path[0] !== from) path.unshift(prev.get(path[0]!)!)
  return path
}

/**
 * Every import between files of the checked folders that lies on a circle of file imports (type-only imports
 * count: they tie the files' meaning together just the same), once per pair of files, each with the shortest
 * circle it closes.
 */
function fileCircleViolations(imports: readonly ImportRef[]): Violation[] {
  const edges = new Map<string, Set<string>>()
  for (const i of imports) {
    if (i.path === undefined || !folderOf(i.path)) continue
    if (!edges.has(i.file)) edges.set(i.file, new Set())
    edges.get(i.file)!.add(i.path)
  }
  const group = new Map(circleGroups(edges).flatMap((g) => g.map((f) => [f, g] as const)))
  const seen = new Set<string>()
  return imports.flatMap((i) => {
    if (i.path === undefined || group.get(i.file) === undefined) return []
    if (group.get(i.file) !== group.get(i.path) || seen.has(`${i.file} ${i.path}`)) return []
    seen.add(`${i.file} ${i.path}`)
    const back = shortestPath(edges, i.path, i.file)
    return [
      {
        rule: 'files import each other in a circle' as const,
        file: i.file,
        specifier: i.specifier,
        why: [i.file, ...back].join(' → '),
      },
    ]
  })
}

/** Every import breaking a rule, in file order, then the folder circles, then the file circles. */
export function checkImports(imports: readonly ImportRef[]): Violation[] {
  const direct = imports.flatMap((i) =>
    fileRules(i).map((v) => ({ ...v, file: i.file, specifier: i.specifier })),
  )
  return [...direct, ...circleViolations(imports), ...fileCircleViolations(imports)]
}

/** `file: specifier (why)` lines of some violations, for a failure message. */
export function listViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `  ${v.file}: '${v.specifier}' (${v.why})`).join('\n')
}

/** The package of a bare specifier: `@scope/name` or the first segment. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

/** A relative specifier of `file` as a repository path, matched to an existing file when `exists` finds one. */
export function resolveRelative(
  file: string,
  specifier: string,
  exists: (path: string) => boolean = () => false,
): string {
  const base = posix.normalize(posix.join(posix.dirname(file), specifier))
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    `${base}.ts`,
    `${base}.tsx`,
    posix.join(base, 'index.ts'),
  ]
  return candidates.find(exists) ?? base
}

/** The imports of one file's source text. */
export function importsOf(
  file: string,
  source: string,
  exists?: (path: string) => boolean,
): ImportRef[] {
  const refs = ts.preProcessFile(source, true, true).importedFiles.map(({ fileName }) => fileName)
  const count = (list: string[], s: string) => list.filter((x) => x === s).length
  const typed = typeImports(source)
  return refs.map((specifier) => ({
    file,
    specifier,
    ...(specifier.startsWith('.')
      ? { path: resolveRelative(file, specifier, exists) }
      : { pkg: packageOf(specifier) }),
    ...(count(typed, specifier) >= count(refs, specifier) ? { typeOnly: true } : {}),
  }))
}

/** The specifiers of the `import type ... from` and `export type ... from` statements of a source text. */
function typeImports(source: string): string[] {
  const text = ts.createSourceFile('x.tsx', source, ts.ScriptTarget.Latest, false)
  const out: string[] = []
  for (const st of text.statements) {
    const spec = (st as { moduleSpecifier?: ts.Expression }).moduleSpecifier
    if (!spec || !ts.isStringLiteral(spec)) continue
    if (ts.isImportDeclaration(st) && st.importClause?.isTypeOnly) out.push(spec.text)
    if (ts.isExportDeclaration(st) && st.isTypeOnly) out.push(spec.text)
  }
  return out
}

/** Every .ts, .tsx and .mjs file under the checked folders of `root` and their imports. */
export function readTree(root: string): { files: string[]; imports: ImportRef[] } {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name)
      if (name === 'node_modules' || name.startsWith('.')) continue
      if (statSync(full).isDirectory()) walk(full)
      else if (/\.(tsx?|mjs)$/.test(name)) files.push(relative(root, full).split(sep).join('/'))
    }
  }
  for (const d of CHECKED) if (existsSync(join(root, d))) walk(join(root, d))
  const exists = (p: string) => existsSync(join(root, p)) && statSync(join(root, p)).isFile()
  const imports = files.flatMap((f) => importsOf(f, readFileSync(join(root, f), 'utf8'), exists))
  return { files, imports }
}

/**
 * The names of the functions a source text defines at any depth: `function name`, or `const name =` (`let`) an
 * arrow function or function expression (`file` tells TSX from TS). Comments, strings and methods are not counted.
 */
export function functionsDefined(source: string, file = 'x.ts'): string[] {
  const out: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionDeclaration(node) && node.name) out.push(node.name.text)
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      out.push(node.name.text)
    ts.forEachChild(node, visit)
  }
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, kind))
  return out
}
