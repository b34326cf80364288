/**
 * Helpers of the audit log suite (test/src/routes/audit-log.test.ts): who calls, what a write must record, and a
 * checker that calls a write route and compares the rows it added to the tenant's audit log (newest first) with
 * what the call should have recorded, marking the route template as exercised.
 */
import * as assert from 'uvu/assert'
import { Client, type Reply, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { TIME } from '../../_support/asserts.ts'
import type { AuditLog } from '../../../src/schemas/audit.ts'
import { createApp } from '../../../src/app.ts'
import { wireShapes } from '../../../src/wire/shapes.ts'

export type AuditRow = Wire<typeof AuditLog>
export type AuditPage = Page<AuditRow>

/** A caller of the API and what the audit log says of it. */
export interface Actor {
  c: Client
  userIntID: number | null
  username: string
  email: string | null
  role: string
}

/** What one audit row of a change names (the caller's fields are checked apart). */
export interface Expect {
  action: string
  resourceType: string
  resourceIntID?: number | null
  resourceID?: string | null
  resourceName?: string | null
  changed?: string[]
}

/** The rows a call should add, oldest first: given, or read off the call's reply (a create's new record). */
export type Expected = Expect[] | ((r: Reply) => Expect[] | Promise<Expect[]>)

/** A multipart or otherwise hand-made request: the checker passes the headers it must carry. */
export type RawCall = (headers: Record<string, string>) => Promise<Reply>

/** Every write route the audit log must record: neither a read nor public (`METHOD /path`). */
export function auditedRoutes(t: TestService): string[] {
  return createApp(t.svc.deps, wireShapes('A'))
    .defs.filter((d) => d.method !== 'get' && !d.public)
    .map((d) => `${d.method.toUpperCase()} ${d.path}`)
}

/** The template of the route a concrete `path` (query string left out) calls. */
function templateOf(routes: string[], method: string, path: string): string | undefined {
  const bare = path.split('?')[0]!
  const fits = routes.filter((r) => {
    const [m, tpl] = r.split(' ') as [string, string]
    const re = new RegExp(`^${tpl.replace(/:[A-Za-z]+/g, '[^/]+')}$`)
    return m === method && re.test(bare)
  })
  // a literal path (/users/me/password) wins over a template (/users/:id)
  return fits.sort((a, b) => a.split(':').length - b.split(':').length)[0]
}

/** A reply made from a fetch Response (multipart uploads). */
export async function replyOf(res: Response): Promise<Reply> {
  const text = await res.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers, text }
}

let seq = 0

/**
 * Calls write routes and checks the audit rows each adds to the tenant of `reader` (an admin of it): `covered`
 * collects the route templates whose change was recorded as expected.
 */
export class AuditCheck {
  readonly covered = new Set<string>()
  private readonly routes: string[]

  constructor(
    t: TestService,
    readonly reader: () => Client,
  ) {
    this.routes = auditedRoutes(t)
  }

  /** The tenant's audit rows, newest first (`q`: filters and paging, `?` included). */
  async page(q = '', c = this.reader()): Promise<AuditPage> {
    const r = await c.get<AuditPage>(`/api/v1/audit_logs${q}`)
    assert.is(r.status, 200, r.text)
    return r.body
  }

  /** The id of the tenant's newest row (0 when none). */
  async last(): Promise<number> {
    return (await this.page('?_limit=1&_sort=id&_order=desc')).items[0]?.id ?? 0
  }

  /** The rows after row `id`, oldest first. */
  async since(id: number): Promise<AuditRow[]> {
    const rows = (await this.page('?_limit=1000&_sort=id&_order=desc')).items
    return rows.filter((r) => r.id > id).reverse()
  }

  /** `method path` with `body` as `who`: asserts a 2xx, and that it added exactly the rows `expected` says. */
  write(who: Actor, method: string, path: string, body: unknown, expected: Expected) {
    const url = `/api/v1${path}`
    return this.raw(
      who,
      method,
      path,
      (headers) => who.c.call(method, url, body, headers),
      expected,
    )
  }

  /**
   * As `write`, for a request made by `call` (a multipart upload, a sign-in); `status`: the one it must answer
   * (a failed sign-in is recorded too), any 2xx when not given.
   */
  async raw(
    who: Actor,
    method: string,
    path: string,
    call: RawCall,
    expected: Expected,
    status?: number,
  ) {
    const route = templateOf(this.routes, method, path)
    const before = await this.last()
    const requestID = `audit-req-${++seq}-${Date.now()}`
    const r = await call({ 'x-request-id': requestID })
    const ok = status === undefined ? r.status >= 200 && r.status < 300 : r.status === status
    assert.ok(ok, `${method} ${path}: ${r.status} ${r.text}`)
    const want = typeof expected === 'function' ? await expected(r) : expected
    const rows = await this.since(before)
    assert.is(rows.length, want.length, `${method} ${path}: rows ${JSON.stringify(rows)}`)
    want.forEach((w, i) => assertRow(rows[i]!, w, who, requestID, `${method} ${path}`))
    if (route) this.covered.add(route)
    return r
  }

  /**
   * The `calls` made at once (with request ids of their own): each asserted a 2xx, and the rows each added (told
   * apart by request id) are those it expects, however the service batched their writes.
   */
  async together(
    calls: Array<{ who: Actor; method: string; path: string; body?: unknown; expect: Expect[] }>,
  ) {
    const before = await this.last()
    const ids = calls.map(() => `audit-req-${++seq}-${Date.now()}`)
    const replies = await Promise.all(
      calls.map((k, i) =>
        k.who.c.call(k.method, `/api/v1${k.path}`, k.body, { 'x-request-id': ids[i]! }),
      ),
    )
    replies.forEach((r, i) => assert.ok(r.status < 300, `${calls[i]!.path}: ${r.status} ${r.text}`))
    const rows = await this.since(before)
    calls.forEach((k, i) => {
      const mine = rows.filter((r) => r.requestID === ids[i])
      assert.is(mine.length, k.expect.length, `${k.method} ${k.path}: ${JSON.stringify(rows)}`)
      k.expect.forEach((w, j) => assertRow(mine[j]!, w, k.who, ids[i]!, `${k.method} ${k.path}`))
    })
    assert.is(
      rows.length,
      calls.reduce((n, k) => n + k.expect.length, 0),
      'no other rows',
    )
  }

  /** `method path` with `body` as `who`: asserts the refusal's status and that the audit log did not grow. */
  async refused(who: Actor, method: string, path: string, body: unknown, status: number) {
    const before = await this.last()
    const r = await who.c.call(method, `/api/v1${path}`, body)
    assert.is(r.status, status, `${method} ${path}: ${r.text}`)
    assert.equal(await this.since(before), [], `${method} ${path} refused, yet recorded`)
    return r
  }
}

/** Asserts one audit row: the change `w` names, by `who`, from this machine, in request `requestID`. */
export function assertRow(row: AuditRow, w: Expect, who: Actor, requestID: string, what: string) {
  // `changed` is a set of names: the order the body named them in is not kept
  const sorted = (o: object) =>
    'changed' in o && Array.isArray(o.changed) ? { ...o, changed: [...o.changed].sort() } : o
  const picked = Object.fromEntries(Object.keys(w).map((k) => [k, row[k as keyof AuditRow]]))
  assert.equal(sorted(picked), sorted(w), `${what}: ${JSON.stringify(row)}`)
  assert.equal(
    [row.userIntID, row.username, row.email, row.role],
    [who.userIntID, who.username, who.email, who.role],
    `${what}: who`,
  )
  assert.is(row.requestID, requestID, `${what}: requestID`)
  assert.match(String(row.clientIP), /^(::ffff:)?127\.0\.0\.1$/, `${what}: clientIP`)
  assert.match(String(row.time), TIME, `${what}: time`)
}

/** The test admin, as the audit log names it. */
export async function adminActor(t: TestService, email: string): Promise<Actor> {
  const row = await t.db.one('SELECT id, username, role FROM users WHERE email = ?', [email])
  return {
    c: t.admin,
    userIntID: Number(row!.id),
    username: String(row!.username),
    email,
    role: String(row!.role),
  }
}

/** A new user of the test admin's tenant with `role`, signed in, as the audit log names it. */
export async function roleActor(t: TestService, role: 'admin' | 'user' | 'viewer'): Promise<Actor> {
  const c = await t.userWithRole(role)
  const row = await t.db.one('SELECT username FROM users WHERE id = ?', [c.id])
  return { c, userIntID: c.id, username: String(row!.username), email: c.email, role }
}

/** An application of `admin`'s tenant with `role`, calling with Basic auth; its token rides along. */
export async function appActor(
  t: TestService,
  admin: Client,
  appName: string,
  role: 'admin' | 'user',
) {
  const r = await admin.post('/api/v1/applications', { appName, role })
  assert.is(r.status, 201, r.text)
  const basic = Buffer.from(`${r.body.appID}:${r.body.appToken}`).toString('base64')
  const actor: Actor = {
    c: new Client(t.url, `Basic ${basic}`),
    userIntID: null,
    username: appName,
    email: null,
    role: 'application',
  }
  return { actor, token: r.body.appToken as string }
}
