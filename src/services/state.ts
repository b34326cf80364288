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
import type { CommandBroker } from './ports.ts'
import { stateInbox } from './state-inbox.ts'
import { stateDelivery } from './state-delivery.ts'

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

/**
 * Stores a group's or product's patch as a task and its job (one transaction); the job loop applies it. NotFound
 * for a scope that is not the tenant's.
 */
async function startScopeJob(
  meta: MetaStore,
  now: number,
  a: Actor,
  scope: 'group' | 'product',
  id: number,
  desired: unknown,
) {
  const patch = checkPatch('desired', desired)
  if (scope === 'group') await meta.groups.get(a.tenant, id)
  else await meta.products.get(a.tenant, id)
  const job = { tenantID: a.tenant, scope, scopeIntID: id }
  const taskID = randomUUID()
  const total = await meta.state.scopeCount(job)
  await meta.state.createJob(
    {
      ...job,
      patch: JSON.stringify(patch),
      userIntID: a.userIntID,
      taskName: STATE_TASK,
      taskID,
      total,
    },
    now,
  )
  return { taskID, statusUrl: `/task_status/${taskID}` }
}

/**
 * HTTP devices waiting for a newer desired version (long polls), by device record id: woken by a change on this
 * node, and reading again every second for a change on another.
 */
function desiredWaits(
  events: EventBus,
  read: (owner: StateOwner) => Promise<StateDocument>,
  now: () => number,
) {
  const pollers = sleepers<number>()
  let releasing = false
  const onState = (e: { deviceIntID: number; side: string }) => {
    if (e.side === 'desired') pollers.wake(e.deviceIntID)
  }
  return {
    /** The document once its desiredVersion is above `after`, or as it is when `waitSeconds` ran out. */
    wait: async (owner: StateOwner, after: number, waitSeconds: number) => {
      const until = now() + waitSeconds * 1000
      for (;;) {
        const doc = await read(owner)
        const left = until - now()
        if (doc.desiredVersion > after || left <= 0 || releasing) return doc
        await pollers.sleep(owner.id, Math.min(left, 1000))
      }
    },
    start: () => events.on('device.state', onState),
    /** Answers every wait now, and later ones at once (shutdown). */
    release: () => {
      releasing = true
      pollers.wakeAll()
    },
    close() {
      events.off('device.state', onState)
      pollers.wakeAll()
    },
  }
}

export function stateService(deps: StateDeps) {
  const { meta, events, identities, now } = deps
  const log = deps.log ?? errorLog(deps.logger, 'state')
  const writer = stateWriter({ meta, events, now })
  const jobs = stateJobs({ meta, writer, now, log })

  /** The tenant's device (or gateway) with record id `id`; NotFound for another tenant's or none. */
  async function ownerOf(tenant: string, id: number): Promise<StateOwner> {
    const d = await identities.byId(id)
    if (!d || d.tenantID !== tenant) throw new NotFound()
    return d
  }

  async function read(owner: StateOwner): Promise<StateDocument> {
    return documentOf(owner, (await meta.state.byDevices([owner.id])).get(owner.id))
  }
  const waits = desiredWaits(events, read, now)

  return {
    /** The document of the tenant's device `id`. */
    get: async (a: Actor, id: number) => read(await ownerOf(a.tenant, id)),

    /** Patches the desired side of the tenant's device `id` (`version`: the desiredVersion it was based on). */
    async patchDesired(a: Actor, id: number, body: { desired: unknown; version?: number }) {
      const patch = checkPatch('desired', body.desired) // 422 before the device is looked up
      const owner = await ownerOf(a.tenant, id)
      return (await writer.apply({ owner, side: 'desired', patch, basedOn: body.version })).doc
    },

    /**
     * Patches the desired side of every device of the tenant's group or product (a task, answered at once; the job
     * is stored with it, so a node that stops leaves the rest to the next).
     */
    async patchScope(a: Actor, scope: 'group' | 'product', id: number, desired: unknown) {
      const started = await startScopeJob(meta, now(), a, scope, id, desired)
      jobs.wake()
      return started
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
    waitDesired: waits.wait,

    /** Starts the job loop and the long polls' wake-ups. */
    start() {
      waits.start()
      jobs.start()
    },

    /** Answers every long poll now (shutdown, before the HTTP server closes). */
    releaseWaiters: waits.release,

    async close() {
      waits.close()
      await jobs.close()
    },
  }
}

export type StateService = ReturnType<typeof stateService>

/** The state service with the devices' side of it: their messages in and the deltas pushed to them. */
export function stateServices(deps: StateDeps & { broker: CommandBroker }) {
  const log = deps.log ?? errorLog(deps.logger, 'state')
  const state = stateService({ ...deps, log })
  return {
    state,
    stateInbox: stateInbox({ broker: deps.broker, state, log }),
    stateDelivery: stateDelivery({ ...deps, log }),
  }
}
