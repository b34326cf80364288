/**
 * `npm run reset-admin`, run as a child process against a running test service's database: a new admin password
 * (ADMIN_PASSWORD or a generated one printed once), that admin's tokens revoked; and the warning when
 * ADMIN_PASSWORD is set but users exist already.
 */
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { LogDestination } from '../../src/kernel/log.ts'
import { loadConfig } from '../../src/kernel/config.ts'
import { startService } from '../../src/service.ts'
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { until } from '../ingest/_mqtt.ts'

const root = join(import.meta.dirname, '..', '..')

/** Runs the script with the service's DATABASE_URL and `env`; answers its exit code and output. */
function resetAdmin(t: TestService, env: Record<string, string>, args: string[] = []) {
  const base = { ...process.env }
  delete base.ADMIN_PASSWORD
  delete base.ADMIN_EMAIL
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/reset-admin.ts', ...args], {
    cwd: root,
    env: { ...base, DATABASE_URL: t.svc.deps.config.DATABASE_URL, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += String(d)))
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)))
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  )
}

let t: TestService
const login = (email: string, password: string) => t.anon.post('/api/v1/login', { email, password })

const reset = serviceSuite('npm run reset-admin', (svc) => (t = svc))

reset(
  'ADMIN_PASSWORD, no email :: the first admin gets it; their old token is revoked',
  async () => {
    assert.is((await t.admin.get('/api/v1/products')).status, 200)
    const r = await resetAdmin(t, { ADMIN_PASSWORD: 'reset-password-1' })
    assert.is(r.code, 0, r.stderr)
    assert.match(r.stdout, `new password set for the admin ${ADMIN_EMAIL}`)
    assert.not.match(r.stdout, 'reset-password-1')
    // the running service re-reads users at most every 5 s
    const revoked = await until(
      () => t.admin.get('/api/v1/products'),
      (x) => x.status === 401,
      8000,
      200,
    )
    assert.is(revoked.body.errors.authorization, 'token revoked')
    assert.is((await login(ADMIN_EMAIL, ADMIN_PASSWORD)).status, 401)
    assert.is((await login(ADMIN_EMAIL, 'reset-password-1')).status, 201)
  },
)

reset(
  'an admin email, no ADMIN_PASSWORD :: a generated password printed once logs in (a disabled admin too)',
  async () => {
    const first = await login(ADMIN_EMAIL, 'reset-password-1')
    const other = await t.newTenant()
    const admin2 = await other.post('/api/v1/users', {
      username: 'second-admin',
      email: 'second-admin@test.local',
      password: 'second-admin-1',
      role: 'admin',
    })
    assert.is(admin2.status, 201, admin2.text)
    // disabled by the tenant's other admin: the reset is the way back in, so it enables them
    assert.is((await other.put(`/api/v1/users/${admin2.body.id}`, { enable: 0 })).status, 200)
    const r = await resetAdmin(t, {}, ['second-admin@test.local'])
    assert.is(r.code, 0, r.stderr)
    const password = /shown once: (\S+)/.exec(r.stdout)?.[1]
    assert.ok(password && password.length >= 16, r.stdout)
    assert.is((await login('second-admin@test.local', password)).status, 201)
    assert.is((await login('second-admin@test.local', 'second-admin-1')).status, 401)
    // the first admin is untouched
    assert.is(first.status, 201)
    assert.is((await login(ADMIN_EMAIL, 'reset-password-1')).status, 201)
  },
)

reset('an unknown email, a non-admin :: exit 1 with the reason, nothing changed', async () => {
  const unknown = await resetAdmin(t, {}, ['nobody@test.local'])
  assert.is(unknown.code, 1)
  assert.match(unknown.stderr, 'no user with the email nobody@test.local')
  // t.admin's token was revoked by the first case: a tenant of its own makes the viewer
  const other = await t.newTenant()
  const viewer = { email: 'a-viewer@test.local', password: 'viewer-pass-1' }
  const made = await other.post('/api/v1/users', {
    ...viewer,
    username: 'a-viewer',
    role: 'viewer',
  })
  assert.is(made.status, 201, made.text)
  const notAdmin = await resetAdmin(t, {}, [viewer.email])
  assert.is(notAdmin.code, 1)
  assert.match(notAdmin.stderr, 'a-viewer@test.local is not an admin')
  assert.is((await login(viewer.email, viewer.password)).status, 201)
})

reset(
  'ADMIN_PASSWORD while users exist :: the service warns it is ignored and names reset-admin',
  async () => {
    const lines: string[] = []
    const destination: LogDestination = { write: (l) => void lines.push(l) }
    const config = loadConfig({
      DATABASE_URL: t.svc.deps.config.DATABASE_URL,
      DATA_DIR: t.dir,
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_WS_PORT: '0',
      LOG_LEVEL: 'info',
      ADMIN_PASSWORD: 'ignored-pass-1',
    })
    const again = await startService(config, { logDestination: destination })
    await again.close()
    const warned = lines.map((l) => JSON.parse(l)).filter((l) => l.component === 'bootstrap')
    assert.equal(
      warned.map((l) => [l.level, l.msg]),
      [
        [
          'warn',
          'ADMIN_PASSWORD is ignored: users exist already. To set a new admin password, run `npm run reset-admin`',
        ],
      ],
    )
  },
)

reset.run()
