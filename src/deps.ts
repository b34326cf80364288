import type { Config } from './config.ts'
import type { MetaStore } from '../store/libsql/meta.ts'
import type { Authenticator } from './http/auth.ts'
import type { TaskRunner } from './tasks.ts'

/** Everything routes may use; src/main.ts (and the tests) build it. */
export interface Deps {
  config: Config
  meta: MetaStore
  auth: Authenticator
  tasks: TaskRunner
}
