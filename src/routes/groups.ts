import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'

/** TODO: filled in by the resource's implementation. */
export function groupRoutes(_deps: Deps) {
  return new Router()
}
