/**
 * `npm run routes` (src/cli/routes.ts): one line per route of the API, `METHOD /api/v1/path → file:line`, for both
 * wire variants: exactly the routes the app serves (createApp's), each naming a line of a source file that exists,
 * and a route declared by hand (not by a helper) names the line of its declaration. The route table in the source
 * (src/routes/table.ts) lists exactly those routes, in order, with their files.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createApp } from '../../src/app.ts'
import { wireShapes } from '../../src/wire/shapes.ts'
import { ROUTE_TABLE } from '../../src/routes/table.ts'
import { startTestService, type TestService } from '../_support/service.ts'

const root = join(import.meta.dirname, '../..')
const test = suite('npm run routes')
const ctx = {} as { t: TestService }

test.before(async () => {
  ctx.t = await startTestService()
})
test.after(() => ctx.t.close())

/** `npm run -s routes` with API_VARIANT; its standard output. */
function routes(variant: 'A' | 'B'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'routes'], {
      cwd: root,
      env: { ...process.env, API_VARIANT: variant },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`)),
    )
  })
}

const LINE =
  /^(GET|POST|PUT|PATCH|DELETE) (\/api\/v1\/\S*) → ((?:src|ingest|query|store)\/\S+\.tsx?):(\d+)$/

for (const variant of ['A', 'B'] as const)
  test(`variant ${variant} :: every route the app serves, once, at a line of a source file`, async () => {
    const lines = (await routes(variant)).trimEnd().split('\n')
    const served = createApp(ctx.t.svc.deps, wireShapes(variant)).defs.map(
      (d) => `${d.method.toUpperCase()} /api/v1${d.path}`,
    )
    assert.ok(served.length > 100, `${served.length} routes`)
    const listed: string[] = []
    for (const line of lines) {
      const m = LINE.exec(line)
      assert.ok(m, `a line of the form METHOD /api/v1/path → file:line: ${line}`)
      const [, method, path, file, at] = m
      listed.push(`${method} ${path}`)
      const source = readFileSync(join(root, file!), 'utf8').split('\n')
      assert.ok(Number(at) >= 1 && Number(at) <= source.length, line)
    }
    assert.equal(listed, served)
    // a route declared by hand: its line is the declaration, its path literal right there
    const login = lines.find((l) => l.startsWith('POST /api/v1/login '))!
    const [, , , file, at] = LINE.exec(login)!
    const near = readFileSync(join(root, file!), 'utf8')
      .split('\n')
      .slice(Number(at) - 1, Number(at) + 5)
      .join('\n')
    assert.match(near, /'\/login'/, login)
  })

for (const variant of ['A', 'B'] as const)
  test(`the route table, variant ${variant} :: every route the app serves, in its order, with its file`, () => {
    const { routers } = createApp(ctx.t.svc.deps, wireShapes(variant))
    const served = routers.flatMap((r) =>
      r.defs.map((d, i) => [
        d.method.toUpperCase(),
        d.path,
        r.declaredAt(i, root).replace(/:\d+$/, ''),
      ]),
    )
    assert.ok(served.length > 100, `${served.length} routes`)
    assert.equal(
      ROUTE_TABLE.map((r) => [...r]),
      served,
      'src/routes/table.ts lists every route: run `npm run routes` and bring it up to date',
    )
  })

test.run()
