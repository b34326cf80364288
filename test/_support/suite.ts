import { suite, type Test } from 'uvu'
import type { ServiceOptions } from '../../src/service.ts'
import { startTestService, type TestService } from './service.ts'

/**
 * A suite with a test service of its own: started (with `env` and `opts`) before its tests and handed to `ready`,
 * which keeps it where the tests read it (and may set up more), closed after them.
 */
export function serviceSuite(
  name: string,
  ready: (t: TestService) => unknown,
  env: Record<string, string> = {},
  opts: ServiceOptions = {},
): Test {
  const s = suite(name)
  let t: TestService | undefined
  s.before(async () => {
    t = await startTestService(env, opts)
    await ready(t)
  })
  s.after(async () => t?.close())
  return s
}
