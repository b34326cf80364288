/**
 * The dependency rules (which folder may import which) over every .ts file of src/, ingest/, query/ and store/:
 * one case per rule on the real tree, listing each offending file and import, and one case per rule feeding the
 * checker (test/_support/architecture.ts) a small import list that breaks it, so each rule is shown to fail.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  RULES,
  checkImports,
  circleGroups,
  circles,
  functionsDefined,
  importsOf,
  listViolations,
  readTree,
  type ImportRef,
  type Rule,
  type Violation,
} from './_support/architecture.ts'
import { functionSizes, productionFunctions } from '../scripts/house.ts'

const arch = suite('architecture')

const root = join(import.meta.dirname, '..')
const tree = readTree(root)
const found = checkImports(tree.imports)

/** The imports of a made-up tree: [file, specifier] pairs, read as `import x from '<specifier>'`. */
const synthetic = (pairs: Array<[string, string]>): ImportRef[] =>
  pairs.flatMap(([file, specifier]) => importsOf(file, `import x from '${specifier}'\n`))

const only = (rule: Rule, vs: readonly Violation[]) => vs.filter((v) => v.rule === rule)

/** Asserts the tree breaks `rule` nowhere, else lists every offending import. */
function clean(rule: Rule) {
  const vs = only(rule, found)
  assert.ok(vs.length === 0, `${vs.length} import(s) break "${rule}":\n${listViolations(vs)}`)
}

arch(
  'reading the tree :: every .ts and .tsx file of src, ingest, query, store with resolved imports',
  () => {
    assert.ok(tree.files.length > 100, `${tree.files.length} files`)
    assert.ok(tree.files.includes('store/telemetry.ts') && tree.files.includes('src/main.ts'))
    assert.ok(tree.files.includes('store/libsql/worker/boot.mjs'), 'worker boot files are read')
    assert.not.ok(tree.files.some((f) => f.startsWith('test/') || f.startsWith('bench/')))
    const kernel = tree.imports.find(
      (i) => i.file === 'store/index.ts' && i.path === 'src/kernel/config.ts',
    )
    assert.ok(kernel, 'store/index.ts → src/kernel/config.ts resolved')
    assert.ok(
      tree.imports.some((i) => i.file.startsWith('store/libsql/') && i.pkg === '@libsql/client'),
    )
    assert.ok(
      tree.imports.some((i) => i.file === 'src/kernel/metrics.ts' && i.pkg === 'prom-client'),
    )
    assert.ok(tree.imports.some((i) => i.file === 'src/kernel/log.ts' && i.pkg === 'pino'))
    assert.ok(
      tree.imports.some(
        (i) => i.file === 'src/console/app.tsx' && i.path === 'src/console/api/client.ts',
      ),
      'src/console/app.tsx → ./api/client.ts resolved',
    )
    assert.equal(
      found.filter((v) => !RULES.includes(v.rule)),
      [],
    )
  },
)

arch(
  'importsOf :: from, export from, side effect, type and dynamic imports; none in comments or strings',
  () => {
    const source = [
      "import a from './a.ts'",
      "import type { B } from '../store/b.ts'",
      'import {',
      '  c,',
      "} from 'hono/body-limit'",
      "import './side.ts'",
      "export * from './e.ts'",
      "export type { F } from '@hono/node-server'",
      "// import g from 'mqtt'",
      "/* import h from 'ws' */",
      'const s = "import i from \'aedes\'"',
      "const m = await import('./dyn.ts')",
      "const t = `import('aedes-x')`",
      'math.import({ a: 1 })',
    ].join('\n')
    assert.equal(importsOf('ingest/x/y.ts', source), [
      { file: 'ingest/x/y.ts', specifier: './a.ts', path: 'ingest/x/a.ts' },
      {
        file: 'ingest/x/y.ts',
        specifier: '../store/b.ts',
        path: 'ingest/store/b.ts',
        typeOnly: true,
      },
      { file: 'ingest/x/y.ts', specifier: 'hono/body-limit', pkg: 'hono' },
      { file: 'ingest/x/y.ts', specifier: './side.ts', path: 'ingest/x/side.ts' },
      { file: 'ingest/x/y.ts', specifier: './e.ts', path: 'ingest/x/e.ts' },
      {
        file: 'ingest/x/y.ts',
        specifier: '@hono/node-server',
        pkg: '@hono/node-server',
        typeOnly: true,
      },
      { file: 'ingest/x/y.ts', specifier: './dyn.ts', path: 'ingest/x/dyn.ts' },
    ])
  },
)

arch('allowed imports :: nothing reported', () => {
  const ok = synthetic([
    ['src/routes/devices.ts', '../services/devices.ts'],
    ['src/routes/emqx.ts', '../../ingest/types.ts'],
    ['src/routes/devices.ts', 'hono'],
    ['src/main.ts', '../store/libsql/meta.ts'],
    ['src/main.ts', '../ingest/broker.ts'],
    ['ingest/writer.ts', '../store/telemetry.ts'],
    ['ingest/writer.ts', '../src/kernel/events.ts'],
    ['ingest/broker/broker.ts', 'aedes'],
    ['ingest/broker/broker.ts', 'aedes-persistence'],
    ['ingest/broker/broker.ts', '../gate.ts'],
    ['ingest/broker/ws.ts', 'ws'],
    ['ingest/external/client.ts', 'mqtt'],
    ['ingest/external/client.ts', '../types.ts'],
    ['query/original.ts', '../store/types.ts'],
    ['store/index.ts', '../src/kernel/config.ts'],
    ['store/index.ts', './libsql/meta.ts'],
    ['store/libsql/db.ts', '@libsql/client'],
    ['store/libsql/db.ts', 'libsql'],
    ['store/libsql/worker/port-db.ts', 'node:worker_threads'],
    ['store/libsql/worker/port-db.ts', '../db.ts'],
    ['store/tsdb/worker/thread.ts', 'node:worker_threads'],
    ['store/tsdb/worker/proxy.ts', '../../libsql/worker/port-db.ts'],
    ['store/tsdb/store.ts', '../libsql/db.ts'],
    ['store/tsdb/store.ts', '../libsql/vacuum.ts'],
    ['store/index.ts', './tsdb/worker/proxy.ts'],
    ['src/routes/variants.ts', '../variant-b/http/devices.ts'],
    ['src/variant-b/http/devices.ts', '../../services/devices.ts'],
    ['src/wire/shapes.ts', '../variant-b/wire/devices.ts'],
    ['store/influx/flux.ts', '@influxdata/influxdb-client'],
    ['src/kernel/config.ts', 'zod'],
    ['src/kernel/metrics.ts', 'prom-client'],
    ['src/kernel/log.ts', 'pino'],
    ['src/kernel/log.ts', 'pino-pretty'],
    ['src/http/console.ts', 'esbuild'],
    ['src/console/app.tsx', './api.ts'],
    ['src/console/app.tsx', 'preact/hooks'],
    ['src/console/live.ts', '@preact/signals'],
    ['src/console/chart.tsx', 'uplot'],
  ])
  assert.equal(checkImports(ok), [])
  const types = importsOf(
    'src/console/api.ts',
    "import type { Device } from '../schemas/devices.ts'",
  )
  assert.equal(checkImports(types), [])
})

arch('the console importing server code or a server package :: reported, types allowed', () => {
  const vs = checkImports([
    ...synthetic([
      ['src/console/api.ts', '../errors.ts'],
      ['src/console/app.tsx', '../../store/types.ts'],
      ['src/console/live.ts', 'hono'],
      ['src/console/app.tsx', 'node:fs'],
      ['src/routes/devices.ts', 'esbuild'],
    ]),
    ...importsOf(
      'src/console/x.ts',
      "import type { A } from '../enums.ts'\nimport { b } from '../enums.ts'\n",
    ),
  ])
  assert.equal(
    vs.map((v) => `${v.rule}: ${v.file} ${v.why}`),
    [
      'console imports the server: src/console/api.ts src/errors.ts: import type only',
      'console imports the server: src/console/app.tsx store/types.ts: import type only',
      'console imports the server: src/console/live.ts hono: only preact, @preact/signals, uplot',
      'console imports the server: src/console/app.tsx node:fs: only preact, @preact/signals, uplot',
      'driver imported outside its home: src/routes/devices.ts esbuild: only in src/http/console.ts',
      'console imports the server: src/console/x.ts src/enums.ts: import type only',
      'console imports the server: src/console/x.ts src/enums.ts: import type only',
    ],
  )
})

// ---- each rule on a made-up tree: the checker reports it ---------------------------------------------------

arch('a route or http module importing a store adapter :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['src/routes/devices.ts', '../../store/libsql/devices.ts'],
      ['src/http/auth.ts', '../../store/influx/telemetry.ts'],
      ['src/routes/devices.ts', '../../store/types.ts'],
    ]),
  )
  assert.equal(vs, [
    {
      rule: 'http layer imports a store adapter',
      file: 'src/routes/devices.ts',
      specifier: '../../store/libsql/devices.ts',
      why: 'store/libsql/devices.ts: use the store ports',
    },
    {
      rule: 'http layer imports a store adapter',
      file: 'src/http/auth.ts',
      specifier: '../../store/influx/telemetry.ts',
      why: 'store/influx/telemetry.ts: use the store ports',
    },
  ])
})

arch('ingest or query importing a store adapter :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['ingest/auth.ts', '../store/libsql/devices.ts'],
      ['query/flux.ts', '../store/influx/flux.ts'],
    ]),
  )
  assert.equal(
    vs.map((v) => [v.rule, v.file, v.specifier]),
    [
      ['ingest or query imports a store adapter', 'ingest/auth.ts', '../store/libsql/devices.ts'],
      ['ingest or query imports a store adapter', 'query/flux.ts', '../store/influx/flux.ts'],
    ],
  )
})

arch('a route importing ingest internals :: reported, ingest/types.ts allowed', () => {
  const vs = checkImports(
    synthetic([
      ['src/routes/emqx.ts', '../../ingest/auth.ts'],
      ['src/routes/emqx.ts', '../../ingest/types.ts'],
    ]),
  )
  assert.equal(vs, [
    {
      rule: 'routes import ingest internals',
      file: 'src/routes/emqx.ts',
      specifier: '../../ingest/auth.ts',
      why: 'ingest/auth.ts: only ingest/types.ts',
    },
  ])
})

arch('a service importing ingest :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['src/services/commands.ts', '../../ingest/types.ts'],
      ['src/services/onboarding.ts', '../../ingest/model.ts'],
      ['src/services/commands.ts', '../kernel/topics.ts'],
      ['src/services/commands.ts', './ports.ts'],
    ]),
  )
  assert.equal(
    vs.map((v) => [v.rule, v.file, v.specifier]),
    [
      ['services import ingest', 'src/services/commands.ts', '../../ingest/types.ts'],
      ['services import ingest', 'src/services/onboarding.ts', '../../ingest/model.ts'],
    ],
  )
})

arch(
  'functionsDefined :: declarations and arrow or function constants at any depth, not comments',
  () => {
    const source = [
      '/** function inComment() */',
      'export function a() {',
      '  const b = (x: number) => x',
      '  let c = async function () {}',
      '}',
      'const d = z.string()',
      "const e = 'function f() {}'",
      'class G { h() {} }',
    ].join('\n')
    assert.equal(functionsDefined(source), ['a', 'b', 'c'])
  },
)

arch('a service importing Variant B, the wire importing a service :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['src/services/devices.ts', '../variant-b/http/devices.ts'],
      ['src/services/groups.ts', '../variant-b/schemas/groups.ts'],
      ['src/services/devices.ts', '../variant-b/wire/devices.ts'],
      ['src/services/devices.ts', '../schemas/devices.ts'],
      ['src/wire/shapes.ts', '../services/devices.ts'],
      ['src/variant-b/wire/devices.ts', '../http/devices.ts'],
      ['src/variant-b/wire/devices.ts', '../../services/groups.ts'],
      ['src/wire/shapes.ts', '../variant-b/schemas/devices.ts'],
      ['src/routes/variants.ts', '../variant-b/http/devices.ts'],
    ]),
  )
  assert.equal(
    vs.map((v) => `${v.rule}: ${v.file} ${v.specifier}`),
    [
      'services import an API variant: src/services/devices.ts ../variant-b/http/devices.ts',
      'services import an API variant: src/services/groups.ts ../variant-b/schemas/groups.ts',
      'services import an API variant: src/services/devices.ts ../variant-b/wire/devices.ts',
      'wire shapes import services: src/wire/shapes.ts ../services/devices.ts',
      'wire shapes import services: src/variant-b/wire/devices.ts ../http/devices.ts',
      'wire shapes import services: src/variant-b/wire/devices.ts ../../services/groups.ts',
    ],
  )
})

arch('ingest, query or store importing src outside src/kernel :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['ingest/writer.ts', '../src/errors.ts'],
      ['query/metrics.ts', '../src/schemas/metrics.ts'],
      ['store/libsql/devices.ts', '../../src/enums.ts'],
      ['store/index.ts', '../src/kernel/config.ts'],
    ]),
  )
  assert.equal(
    only('lower folder imports src outside src/kernel', vs).map((v) => [v.file, v.why]),
    [
      ['ingest/writer.ts', 'src/errors.ts'],
      ['query/metrics.ts', 'src/schemas/metrics.ts'],
      ['store/libsql/devices.ts', 'src/enums.ts'],
    ],
  )
})

arch('a service or rule importing the HTTP error :: reported, src/kernel/errors.ts allowed', () => {
  const vs = checkImports(
    synthetic([
      ['src/services/devices.ts', '../errors.ts'],
      ['src/rules/devices.ts', '../errors.ts'],
      ['src/services/devices.ts', '../kernel/errors.ts'],
      ['src/routes/devices.ts', '../errors.ts'],
    ]),
  )
  assert.equal(
    vs.map((v) => `${v.rule}: ${v.file} ${v.why}`),
    [
      'domain code imports the HTTP error: src/services/devices.ts src/errors.ts: throw the domain errors of src/kernel/errors.ts',
      'domain code imports the HTTP error: src/rules/devices.ts src/errors.ts: throw the domain errors of src/kernel/errors.ts',
    ],
  )
})

arch('a driver imported outside its home, hono below src :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['src/routes/telemetry.ts', '@libsql/client'],
      ['store/influx/telemetry.ts', '@libsql/client'],
      ['query/flux.ts', '@influxdata/influxdb-client'],
      ['src/main.ts', 'mqtt'],
      ['store/libsql/db.ts', 'aedes'],
      ['src/routes/emqx.ts', 'aedes-persistence'],
      ['src/http/stream.ts', 'ws'],
      ['ingest/http.ts', 'hono'],
      ['query/http.ts', 'hono/body-limit'],
      ['store/server.ts', '@hono/node-server'],
      ['ingest/pipeline.ts', 'prom-client'],
      ['src/app.ts', 'prom-client'],
      ['store/libsql/telemetry.ts', 'pino'],
      ['src/http/observe.ts', 'pino-pretty'],
      ['ingest/pipeline.ts', 'libsql'],
      ['src/service.ts', 'node:worker_threads'],
      ['ingest/broker/broker.ts', 'mqtt'],
      ['ingest/external/client.ts', 'aedes'],
      ['ingest/pipeline.ts', 'ws'],
    ]),
  )
  assert.equal(
    vs.map((v) => `${v.rule}: ${v.file} ${v.why}`),
    [
      'driver imported outside its home: src/routes/telemetry.ts @libsql/client: only in store/libsql/',
      'driver imported outside its home: store/influx/telemetry.ts @libsql/client: only in store/libsql/',
      'driver imported outside its home: query/flux.ts @influxdata/influxdb-client: only in store/influx/',
      'driver imported outside its home: src/main.ts mqtt: only in ingest/external/',
      'driver imported outside its home: store/libsql/db.ts aedes: only in ingest/broker/',
      'driver imported outside its home: src/routes/emqx.ts aedes-persistence: only in ingest/broker/',
      'driver imported outside its home: src/http/stream.ts ws: only in ingest/broker/',
      'driver imported outside its home: ingest/http.ts hono: not in ingest, query, store',
      'driver imported outside its home: query/http.ts hono: not in ingest, query, store',
      'driver imported outside its home: store/server.ts @hono/node-server: not in ingest, query, store',
      'driver imported outside its home: ingest/pipeline.ts prom-client: only in src/kernel/metrics.ts',
      'driver imported outside its home: src/app.ts prom-client: only in src/kernel/metrics.ts',
      'driver imported outside its home: store/libsql/telemetry.ts pino: only in src/kernel/log.ts',
      'driver imported outside its home: src/http/observe.ts pino-pretty: only in src/kernel/log.ts',
      'driver imported outside its home: ingest/pipeline.ts libsql: only in store/libsql/',
      'driver imported outside its home: src/service.ts node:worker_threads: only in store/libsql/worker/ or store/tsdb/worker/',
      'driver imported outside its home: ingest/broker/broker.ts mqtt: only in ingest/external/',
      'driver imported outside its home: ingest/external/client.ts aedes: only in ingest/broker/',
      'driver imported outside its home: ingest/pipeline.ts ws: only in ingest/broker/',
    ],
  )
})

arch('a worker thread module importing HTTP, the broker or MQTT :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['store/libsql/worker/writer.ts', 'hono'],
      ['store/libsql/worker/reader.ts', 'mqtt'],
      ['store/tsdb/worker/thread.ts', 'aedes'],
      ['store/tsdb/worker/thread.ts', '../../../ingest/broker/hooks.ts'],
      ['store/tsdb/worker/thread.ts', '../../../ingest/external/client.ts'],
      ['store/tsdb/worker/thread.ts', '../../../src/routes/devices.ts'],
      ['store/tsdb/worker/thread.ts', '../../../src/http/errors.ts'],
      ['store/tsdb/worker/thread.ts', '../store.ts'],
      ['store/libsql/worker/writer.ts', '../db.ts'],
    ]),
  )
  assert.equal(
    only('worker imports the network', vs).map((v) => `${v.file} ${v.why}`),
    [
      'store/libsql/worker/writer.ts hono: worker threads run storage and computation only',
      'store/libsql/worker/reader.ts mqtt: worker threads run storage and computation only',
      'store/tsdb/worker/thread.ts aedes: worker threads run storage and computation only',
      'store/tsdb/worker/thread.ts ingest/broker/hooks.ts: worker threads run storage and computation only',
      'store/tsdb/worker/thread.ts ingest/external/client.ts: worker threads run storage and computation only',
      'store/tsdb/worker/thread.ts src/routes/devices.ts: worker threads run storage and computation only',
      'store/tsdb/worker/thread.ts src/http/errors.ts: worker threads run storage and computation only',
    ],
  )
})

arch('the pipeline importing a broker, a broker importing the other :: reported', () => {
  const vs = checkImports(
    synthetic([
      ['ingest/pipeline.ts', './broker/broker.ts'],
      ['ingest/gate.ts', './external/client.ts'],
      ['ingest/external/client.ts', '../broker/broker.ts'],
      ['ingest/broker/hooks.ts', '../external/acks.ts'],
      ['ingest/broker/hooks.ts', '../gate.ts'],
      ['ingest/broker/hooks.ts', './commands.ts'],
      ['ingest/external/client.ts', '../identity.ts'],
    ]),
  )
  assert.equal(
    vs.map((v) => `${v.rule}: ${v.file} ${v.specifier}`),
    [
      'the pipeline imports a broker: ingest/pipeline.ts ./broker/broker.ts',
      'the pipeline imports a broker: ingest/gate.ts ./external/client.ts',
      'the brokers import each other: ingest/external/client.ts ../broker/broker.ts',
      'the brokers import each other: ingest/broker/hooks.ts ../external/acks.ts',
    ],
  )
})

arch(
  'the time-series engine and the metadata repositories importing each other :: reported',
  () => {
    const vs = checkImports(
      synthetic([
        ['store/tsdb/store.ts', '../libsql/devices.ts'],
        ['store/tsdb/worker/proxy.ts', '../../libsql/event-log.ts'],
        ['store/libsql/retention.ts', '../tsdb/store.ts'],
        ['store/tsdb/store.ts', '../libsql/db.ts'],
        ['store/tsdb/store.ts', '../libsql/sql-errors.ts'],
        ['store/tsdb/worker/thread.ts', '../../libsql/worker/errors.ts'],
        ['store/tsdb/reads.ts', '../rollups.ts'],
      ]),
    )
    assert.equal(
      vs.map((v) => `${v.rule}: ${v.file} ${v.specifier}`),
      [
        'metadata and time series import each other: store/tsdb/store.ts ../libsql/devices.ts',
        'metadata and time series import each other: store/tsdb/worker/proxy.ts ../../libsql/event-log.ts',
        'metadata and time series import each other: store/libsql/retention.ts ../tsdb/store.ts',
      ],
    )
  },
)

arch('folders importing each other in a circle :: each import of the circle reported', () => {
  const vs = checkImports(
    synthetic([
      ['src/main.ts', '../ingest/broker.ts'],
      ['ingest/broker.ts', '../store/telemetry.ts'],
      ['ingest/broker.ts', '../src/kernel/events.ts'],
      ['store/telemetry.ts', '../query/windows.ts'],
      ['query/windows.ts', '../ingest/types.ts'],
      ['src/kernel/events.ts', '../../store/types.ts'],
    ]),
  )
  assert.equal(
    only('folders import each other in a circle', vs).map(
      (v) => `${v.file} '${v.specifier}': ${v.why}`,
    ),
    [
      "ingest/broker.ts '../store/telemetry.ts': ingest → store → query → ingest",
      "store/telemetry.ts '../query/windows.ts': ingest → store → query → ingest",
      "query/windows.ts '../ingest/types.ts': ingest → store → query → ingest",
      "ingest/broker.ts '../src/kernel/events.ts': ingest → src/kernel → store → query → ingest",
      "src/kernel/events.ts '../../store/types.ts': ingest → src/kernel → store → query → ingest",
      "store/telemetry.ts '../query/windows.ts': ingest → src/kernel → store → query → ingest",
      "query/windows.ts '../ingest/types.ts': ingest → src/kernel → store → query → ingest",
    ],
  )
  assert.equal(
    circles(
      new Map([
        ['a', new Set(['b'])],
        ['b', new Set(['a', 'c'])],
        ['c', new Set<string>()],
      ]),
    ),
    [['a', 'b']],
  )
  assert.equal(circles(new Map([['a', new Set(['b'])]])), [])
})

arch(
  'files importing each other in a circle, type-only too :: each import on a circle reported',
  () => {
    const vs = checkImports([
      ...synthetic([
        ['store/types.ts', './metadata.ts'],
        ['store/metadata.ts', './meta/devices.ts'],
        ['store/meta/devices.ts', '../telemetry.ts'],
        ['src/deps.ts', './http/health.ts'],
        ['src/app.ts', './deps.ts'],
        ['src/x.ts', './x.ts'],
      ]),
      ...importsOf('store/meta/devices.ts', "import type { Row } from '../types.ts'\n"),
      ...importsOf('src/http/health.ts', "import type { Deps } from '../deps.ts'\n"),
    ])
    assert.equal(
      only('files import each other in a circle', vs).map(
        (v) => `${v.file} '${v.specifier}': ${v.why}`,
      ),
      [
        "store/types.ts './metadata.ts': store/types.ts → store/metadata.ts → store/meta/devices.ts → store/types.ts",
        "store/metadata.ts './meta/devices.ts': store/metadata.ts → store/meta/devices.ts → store/types.ts → store/metadata.ts",
        "src/deps.ts './http/health.ts': src/deps.ts → src/http/health.ts → src/deps.ts",
        "src/x.ts './x.ts': src/x.ts → src/x.ts",
        "store/meta/devices.ts '../types.ts': store/meta/devices.ts → store/types.ts → store/metadata.ts → store/meta/devices.ts",
        "src/http/health.ts '../deps.ts': src/http/health.ts → src/deps.ts → src/http/health.ts",
      ],
    )
    assert.equal(
      circleGroups(
        new Map([
          ['d', new Set(['a'])],
          ['a', new Set(['b'])],
          ['b', new Set(['a', 'c'])],
          ['c', new Set(['c'])],
        ]),
      ),
      [['a', 'b'], ['c']],
    )
  },
)

// ---- the real tree ------------------------------------------------------------------------------------------

arch(
  'src/routes and src/http of the tree :: import nothing under store/libsql or store/influx',
  () => clean('http layer imports a store adapter'),
)

arch('ingest and query of the tree :: import nothing under store/libsql or store/influx', () =>
  clean('ingest or query imports a store adapter'),
)

arch('src/routes of the tree :: imports nothing of ingest but ingest/types.ts', () =>
  clean('routes import ingest internals'),
)

arch('src/services of the tree :: imports nothing of ingest', () => clean('services import ingest'))

arch('src/services of the tree :: imports no Variant B module nor its adapter', () =>
  clean('services import an API variant'),
)

arch('src/services of the tree :: names no API variant, takes no untyped body', () => {
  const knowing = tree.files
    .filter((f) => f.startsWith('src/services/'))
    .filter((f) =>
      /\bVariant [AB]\b|API_VARIANT|body: unknown/.test(readFileSync(join(root, f), 'utf8')),
    )
  assert.equal(knowing, [])
})

arch('src/wire of the tree (the shapes and their serializers) :: imports no service', () =>
  clean('wire shapes import services'),
)

arch(
  'topic rules of the tree :: each function of src/kernel/topics.ts defined there only (one relativeTopic)',
  () => {
    const read = (f: string) => readFileSync(join(root, f), 'utf8')
    const rules = new Set(functionsDefined(read('src/kernel/topics.ts')))
    assert.ok(rules.has('relativeTopic') && rules.has('mountpoint'), [...rules].join(', '))
    const again = tree.files
      .filter((f) => f !== 'src/kernel/topics.ts')
      .flatMap((f) =>
        functionsDefined(read(f), f)
          .filter((n) => rules.has(n))
          .map((n) => `${f}: ${n}`),
      )
    assert.equal(again, [])
  },
)

arch('worker threads of the tree (store/libsql/worker, src/workers) :: load no network code', () =>
  clean('worker imports the network'),
)

arch('ingest, query and store of the tree :: import nothing of src but src/kernel', () =>
  clean('lower folder imports src outside src/kernel'),
)

arch(
  'drivers in the tree :: each imported only in its home (prom-client in src/kernel/metrics.ts, pino in src/kernel/log.ts), hono nowhere in ingest, query, store',
  () => clean('driver imported outside its home'),
)

arch(
  'src/console of the tree :: imports only preact, @preact/signals, uplot and server types',
  () => clean('console imports the server'),
)

arch(
  'src/services and src/rules of the tree :: throw domain errors, never import src/errors.ts (ingest, query, store: by the src/kernel rule)',
  () => clean('domain code imports the HTTP error'),
)

arch('folder graph of the tree (src, src/kernel, ingest, query, store) :: no circle', () =>
  clean('folders import each other in a circle'),
)

arch(
  'files of the tree (src, ingest, query, store; type-only imports too) :: no circle, each named otherwise',
  () => clean('files import each other in a circle'),
)

arch('functions of the tree :: none over 150 lines (scripts/house.ts counts them)', () => {
  const long = productionFunctions().filter((f) => f.lines > 150)
  assert.equal(
    long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`),
    [],
    'split them: docs/code-tour.md "The house\'s figures"',
  )
})

arch(
  'function sizes :: functions, methods, arrows and accessors counted first line to last',
  () => {
    const source = [
      'export function a() {', // 1
      '  const b = () => {', // 2
      '    return 1', // 3
      '  }', // 4
      '}', // 5
      'class C {', // 6
      '  get d() { return 2 }', // 7
      '  e(x: number) {', // 8
      '    return x', // 9
      '  }', // 10
      '}', // 11
      'declare function f(): void', // 12: no body
    ].join('\n')
    assert.equal(
      functionSizes('x.ts', source).map((f) => `${f.name} ${f.line} ${f.lines}`),
      ['a 1 5', 'b 2 3', 'd 7 1', 'e 8 3'],
    )
  },
)

arch.run()
