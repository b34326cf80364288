/**
 * Follows the outbox from the moment it starts: every `FOLLOW_MS` it hands `step` the id of the last event it saw
 * and takes the id `step` read up to. Nodes sharing the embedded-broker deployment use it to act on the changes
 * other nodes made (a state delta to push, a rollout message to send) for the devices connected to them. One step
 * at a time; a failed step is logged and tried again from the same event.
 */
import type { MetaStore } from '../../store/types.ts'

/** How often a follower reads the outbox. */
const FOLLOW_MS = 250
/** Outbox events a step reads at most. */
export const FOLLOW_PAGE = 5000

export function outboxFollower(
  meta: MetaStore,
  what: string,
  step: (since: number) => Promise<number>,
  log: (message: string, e?: unknown) => void,
) {
  let last = -1
  let busy = false
  let timer: NodeJS.Timeout | undefined

  async function follow() {
    if (busy || last < 0) return
    busy = true
    try {
      last = await step(last)
    } catch (e) {
      log(`${what} follow failed`, e)
    } finally {
      busy = false
    }
  }

  return {
    async start() {
      last = await meta.webhooks.lastEventID()
      timer = setInterval(() => void follow(), FOLLOW_MS)
      timer.unref()
    },
    close: () => clearInterval(timer),
  }
}
