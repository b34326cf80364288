import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/kernel/config.ts'
import { startService, type Service, type ServiceOptions } from '../../src/service.ts'
import { openDb, type Db } from '../../store/libsql/db.ts'

export const ADMIN_EMAIL = 'admin@test.local'
export const ADMIN_PASSWORD = 'admin-password-1'

/**
 * The body of a reply whose test names no type for it (`c.get(path)`), read as loosely as its assertions read it (an
 * error's fields, a status). A test that reads a record names the record's type instead:
 * `c.get<Page<Wire<typeof Device>>>(path)` (test/_support/wire.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one untyped default of the tests, see above
export type Loose = any

export interface Reply<T = Loose> {
  status: number
  body: T
  headers: Headers
  text: string
}

/** An HTTP client of the running service, optionally with credentials. */
export class Client {
  constructor(
    readonly url: string,
    readonly authorization?: string,
    readonly lang?: string,
  ) {}

  async call<T = Loose>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const h: Record<string, string> = { ...headers }
    if (this.authorization) h.authorization ??= this.authorization
    if (this.lang) h['accept-language'] ??= this.lang
    let payload: string | Uint8Array | undefined
    if (typeof body === 'string' || body instanceof Uint8Array) payload = body
    else if (body !== undefined) {
      payload = JSON.stringify(body)
      h['content-type'] ??= 'application/json'
    }
    const res = await fetch(this.url + path, { method, headers: h, body: payload })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      // not JSON: the body is the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text }
  }
  get = <T = Loose>(path: string, headers?: Record<string, string>) =>
    this.call<T>('GET', path, undefined, headers)
  post = <T = Loose>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.call<T>('POST', path, body, headers)
  put = <T = Loose>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.call<T>('PUT', path, body, headers)
  patch = <T = Loose>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.call<T>('PATCH', path, body, headers)
  del = <T = Loose>(path: string, headers?: Record<string, string>) =>
    this.call<T>('DELETE', path, undefined, headers)

  /** The same caller asking for English labels. */
  english() {
    return new Client(this.url, this.authorization, 'en')
  }
}

/**
 * A libSQL handle of its own on a service's metadata database, for raw SQL in tests (the MetaStore port has no
 * `db`). The caller closes it.
 */
export function openSql(svc: Service): Promise<Db> {
  return openDb({ url: svc.deps.config.DATABASE_URL })
}

export interface TestService {
  svc: Service
  url: string
  dir: string
  /** Raw SQL on the service's metadata database (its own connection; closed by close()). */
  db: Db
  /** The first tenant's admin. */
  admin: Client
  anon: Client
  /** Signs up a new tenant and returns its admin client (tenant isolation tests). */
  newTenant(): Promise<Client & { tenantID: string }>
  /** A user of the admin's tenant with the given role, logged in; its record id and email ride along. */
  userWithRole(role: 'admin' | 'user' | 'viewer'): Promise<Client & { id: number; email: string }>
  close(): Promise<void>
}

let seq = 0

/** The settings of a test service over `dir`: free ports, the test admin, quiet logs; `env` added last. */
export function testConfig(dir: string, env: Record<string, string> = {}) {
  return loadConfig({
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    MQTT_WS_PORT: '0',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    ALLOW_SIGNUP: 'true',
    // the tests' webhook receivers listen on 127.0.0.1
    WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'error',
    // fixtures date their events and logs in 2024: the retention job (its first run 30 s after start) would delete
    // them in the middle of a slow machine's test; the tests of retention set these themselves
    RETENTION_EVENTS_DAYS: '0',
    RETENTION_LOGS_DAYS: '0',
    // `DB_WORKERS=off npm test -- x` runs the services with the metadata database in the main thread
    ...(process.env.DB_WORKERS ? { DB_WORKERS: process.env.DB_WORKERS } : {}),
    ...env,
  })
}

/** Starts the real service on a free port over a fresh libSQL file in a temp dir. */
export async function startTestService(
  env: Record<string, string> = {},
  opts: ServiceOptions = {},
): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-test-'))
  const svc = await startService(testConfig(dir, env), opts)
  const anon = new Client(svc.url)
  const login = async (email: string, password: string) => {
    const r = await anon.post('/api/v1/login', { email, password })
    if (r.status !== 201) throw new Error(`login failed: ${r.text}`)
    return r.body as { token: string; tenantID: string }
  }
  const admin = new Client(svc.url, `Bearer ${(await login(ADMIN_EMAIL, ADMIN_PASSWORD)).token}`)
  const db = await openSql(svc)
  return {
    svc,
    url: svc.url,
    dir,
    db,
    admin,
    anon,
    async newTenant() {
      const n = ++seq
      const r = await anon.post('/api/v1/signup', {
        email: `tenant${n}-${Date.now()}@test.local`,
        username: `tenant${n}`,
        password: 'tenant-password-1',
        tenantName: `Tenant ${n}`,
      })
      if (r.status !== 201) throw new Error(`signup failed: ${r.text}`)
      return Object.assign(new Client(svc.url, `Bearer ${r.body.token}`), {
        tenantID: r.body.tenantID as string,
      })
    },
    async userWithRole(role) {
      const email = `${role}${++seq}-${Date.now()}@test.local`
      const r = await admin.post('/api/v1/users', {
        username: `${role}${seq}`,
        email,
        password: 'user-password-1',
        role,
      })
      if (r.status !== 201) throw new Error(`user create failed: ${r.text}`)
      const client = new Client(svc.url, `Bearer ${(await login(email, 'user-password-1')).token}`)
      return Object.assign(client, { id: r.body.id as number, email })
    },
    async close() {
      await svc.close()
      void db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Polls a task's `statusUrl` until it is done or failed; answers its status record. */
export async function waitTask(client: Client, statusUrl: string) {
  for (let i = 0; i < 400; i++) {
    const r = await client.get(`/api/v1${statusUrl}`)
    if (r.body.status >= 3) return r.body
    await new Promise((res) => setTimeout(res, 25))
  }
  throw new Error('task did not finish')
}
