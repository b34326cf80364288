/**
 * The service as the ingest tests start and reach it: one test service per suite, its log lines collected, and the
 * admin signed in to a service by its URL.
 */
import type { Test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  Client,
  startTestService,
  type TestService,
} from '../_support/service.ts'
import type { LogDestination } from '../../src/kernel/log.ts'
import type { ServiceOptions } from '../../src/service.ts'

/** Starts a test service (with `env`, `opts`) before the suite's cases and hands it to `set`; closes it after. */
export function withService(
  s: Test,
  set: (t: TestService) => void,
  env: Record<string, string> = {},
  opts: ServiceOptions = {},
) {
  let t: TestService | undefined
  s.before(async () => {
    t = await startTestService(env, opts)
    set(t)
  })
  s.after(async () => t?.close())
}

/** A log destination keeping the service's JSON lines, and those lines parsed. */
export function logCollector() {
  const lines: string[] = []
  const destination: LogDestination = { write: (line) => void lines.push(line) }
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  return { lines, destination, records }
}

/** Signs the test admin in at `url`: the login's reply (asserted 201) and a client holding its token. */
export async function adminLogin(url: string) {
  const login = await new Client(url).post('/api/v1/login', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  })
  assert.is(login.status, 201, login.text)
  return { login, admin: new Client(url, `Bearer ${login.body.token}`) }
}
