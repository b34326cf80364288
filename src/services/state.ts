/**
 * Device state (README "Desired state"): every device's document of what it should be (`desired`, written by API
 * callers) and what it says it is (`reported`, written by the device), and the `delta` between them. Every change
 * goes through the state writer (state-writer.ts: a compare-and-set stored with its `device.state` event); a group's
 * or a product's patch is a job row that whichever node claims applies a page of devices at a time
 * (state-jobs.ts). Pushing deltas to devices is state-delivery.ts.
 */
import { randomUUID } from 'node:crypto'
import { NotFound } from '../kernel/errors.ts'
import type { EventBus } from '../kernel/events.ts'
import { errorLog, type Logger } from '../kernel/log.ts'
import type { MetaStore } from '../../store/types.ts'
import type { Identities } from './command-dispatch.ts'
import { sleepers } from './sleepers.ts'
import { documentOf, type StateDocument, type StateOwner } from './state-document.ts'
import { stateJobs } from './state-jobs.ts'
import { checkPatch, stateWriter } from './state-writer.ts'
import type { Actor } from './types.ts'

export type { StateDocument } from './state-document.ts'

export interface StateDeps {
  meta: MetaStore
  events: EventBus
  identities: Identities
  now: () => number
  log?: (message: string, e?: unknown) => void
  logger?: Logger
}

/** The task name of a group's or product's patch. */
export const STATE_TASK = 'device_state'

export function stateService(deps: StateDeps) {
  const { meta, events, identities, now } = deps
  const log = deps.log ?? errorLog(deps.logger, 'state')
  const writer = stateWriter({ meta, events, now })
  const jobs = stateJobs({ meta, writer, now, log })
  /** HTTP devices waiting for a newer desired version, by device record id. */
  const pollers = sleepers<number>()
  let releasing = false
  const onState = (e: { deviceIntID: number; side: string }) => {
    if (e.side === 'desired') pollers.wake(e.deviceIntID)
  }

  /** The tenant's device (or gateway) with record id `id`; NotFound for another tenant's or none. */
  async function ownerOf(tenant: string, id: number): Promise<StateOwner> {
    const d = await identities.byId(id)
    if (!d || d.tenantID !== tenant) throw new NotFound()
    return d
  }

  async function read(owner: StateOwner): Promise<StateDocument> {
    return documentOf(owner, (await meta.state.byDevices([owner.id])).get(owner.id))
  }

  return {
    /** The document of the tenant's device `id`. */
    get: async (a: Actor, id: number) => read(await ownerOf(a.tenant, id)),

    /** Patches the desired side of the tenant's device `id` (`version`: the desiredVersion it was based on). */
    async patchDesired(a: Actor, id: number, body: { desired: unknown; version?: number }) {
      const patch = checkPatch('desired', body.desired)
      const owner = await ownerOf(a.tenant, id)
      const out = await writer.apply({ owner, side: 'desired', patch, basedOn: body.version })
      return out.doc
    },

    /**
     * Patches the desired side of every device of the tenant's group or product (a task, answered at once; the job
     * is stored with it, so a node that stops leaves the rest to the next).
     */
    async patchScope(a: Actor, scope: 'group' | 'product', id: number, desired: unknown) {
      const patch = checkPatch('desired', desired)
      if (scope === 'group') await meta.groups.get(a.tenant, id)
      else await meta.products.get(a.tenant, id)
      const job = { tenantID: a.tenant, scope, scopeIntID: id }
      const taskID = randomUUID()
      await meta.state.createJob(
        {
          ...job,
          patch: JSON.stringify(patch),
          userIntID: a.userIntID,
          taskName: STATE_TASK,
          taskID,
          total: await meta.state.scopeCount(job),
        },
        now(),
      )
      jobs.wake()
      return { taskID, statusUrl: `/task_status/${taskID}` }
    },

    /** A device reports (a merge patch of `reported`): resolves once it is committed. */
    report: async (owner: StateOwner, reported: unknown) => {
      const patch = checkPatch('reported', reported)
      return (await writer.apply({ owner, side: 'reported', patch })).doc
    },

    /** A device's own document. */
    document: read,

    /**
     * An HTTP device waits (up to `waitSeconds`) for a desired version above `after`; answers the document then, or
     * as it is when the wait ends.
     */
    async waitDesired(owner: StateOwner, after: number, waitSeconds: number) {
      const until = now() + waitSeconds * 1000
      for (;;) {
        const doc = await read(owner)
        const left = until - now()
        if (doc.desiredVersion > after || left <= 0 || releasing) return doc
        // woken by a change on this node; a change on another node is seen at the next read (at most 1 s later)
        await pollers.sleep(owner.id, Math.min(left, 1000))
      }
    },

    /** Starts the job loop and the long polls' wake-ups. */
    start() {
      events.on('device.state', onState)
      jobs.start()
    },

    /** Answers every long poll now (shutdown, before the HTTP server closes). */
    releaseWaiters() {
      releasing = true
      pollers.wakeAll()
    },

    async close() {
      events.off('device.state', onState)
      pollers.wakeAll()
      await jobs.close()
    },
  }
}

export type StateService = ReturnType<typeof stateService>
