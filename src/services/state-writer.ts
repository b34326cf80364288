/**
 * Writes changes of state documents: every change asked for in the same turn of the event loop is applied in one
 * read and one write transaction (a fleet reporting at once, a group patch a page at a time). A write is a
 * compare-and-set on the document's `version`, so nodes sharing the database never lose a change or repeat a
 * version: a change that lost the race is computed again from the document that won it.
 */
import { Invalid, NotFound, VersionConflict } from '../kernel/errors.ts'
import type { EventBus } from '../kernel/events.ts'
import { auditOf, detached, together, type AuditScope } from '../kernel/audit.ts'
import { isJson, isObject, patchProblems, type JsonObject, type StateSide } from '../rules/state.ts'
import type { MetaStore } from '../../store/types.ts'
import {
  applyPatch,
  documentOf,
  type AppliedChange,
  type StateDocument,
  type StateOwner,
} from './state-document.ts'

/** One change asked for: a merge patch of one side of `owner`'s document. */
export interface StateChange {
  owner: StateOwner
  side: StateSide
  patch: JsonObject
  /** The `desiredVersion` the patch was based on: a conflict when it is no longer current. */
  basedOn?: number
}

/** What became of a change: the document after it, and whether it changed anything. */
export interface StateOutcome {
  doc: StateDocument
  changed: boolean
}

interface Queued {
  change: StateChange
  resolve(o: StateOutcome): void
  reject(e: unknown): void
  attempts: number
  /** The audit scope of the caller (a patch through the API), written by the round that applies its change. */
  audit?: AuditScope
}

/** Rounds a change may lose its compare-and-set before it fails (its device was deleted meanwhile, or a storm). */
const MAX_ATTEMPTS = 8
/**
 * Changes a round takes at most: one transaction of that many documents holds the one writer for tens of ms, so
 * ingest's commits wait no longer than that behind it; the rest wait for the next round.
 */
export const MAX_ROUND = 500

/** The patch of `side` as JSON; Invalid when it is no JSON object or breaks a key or nesting rule (every key named). */
export function checkPatch(side: StateSide, patch: unknown): JsonObject {
  if (!isJson(patch) || !isObject(patch)) throw new Invalid(side, 'must be a JSON object')
  const problems = patchProblems(side, patch)
  if (Object.keys(problems).length) throw new Invalid(problems)
  return patch
}

/**
 * Applies each device's first queued change to its stored document: the changes to write; a change that changes
 * nothing is answered at once, one that conflicts or is refused is rejected.
 */
function applyFirst(
  first: Map<number, Queued>,
  stored: Awaited<ReturnType<MetaStore['state']['byDevices']>>,
  now: number,
): Map<number, { q: Queued; a: AppliedChange }> {
  const applied = new Map<number, { q: Queued; a: AppliedChange }>()
  for (const [id, q] of first) {
    const { owner, side, patch, basedOn } = q.change
    const doc = documentOf(owner, stored.get(id))
    try {
      if (basedOn !== undefined && basedOn !== doc.desiredVersion)
        throw new VersionConflict(
          'version',
          `the desired state is at version ${doc.desiredVersion}, not ${basedOn}`,
        )
      const a = applyPatch(owner, doc, side, patch, now)
      if (a) applied.set(id, { q, a })
      else q.resolve({ doc, changed: false })
    } catch (e) {
      q.reject(e)
    }
  }
  return applied
}

export function stateWriter(d: { meta: MetaStore; events: EventBus; now: () => number }) {
  const queue: Queued[] = []
  let running = false

  /**
   * One round (at most MAX_ROUND changes): a device's first queued change each (its later ones wait for the next
   * round, so they see it), read, applied and written; the changes that lost their compare-and-set go back to the
   * front of the queue.
   */
  async function round(batch: Queued[]): Promise<Queued[]> {
    const first = new Map<number, Queued>()
    const later: Queued[] = []
    for (const q of batch) {
      if (first.has(q.change.owner.id)) later.push(q)
      else first.set(q.change.owner.id, q)
    }
    const stored = await d.meta.state.byDevices([...first.keys()])
    const now = d.now()
    const applied = applyFirst(first, stored, now)
    const written = await together(
      [...applied.values()].map(({ q }) => q.audit),
      () =>
        d.meta.state.write(
          [...applied.values()].map(({ a }) => a.write),
          now,
        ),
    )
    const retry: Queued[] = []
    for (const [id, { q, a }] of applied) {
      if (written.has(id)) {
        d.events.emit('device.state', a.event)
        q.resolve({ doc: a.doc, changed: true })
      } else if (++q.attempts >= MAX_ATTEMPTS) q.reject(new NotFound('deviceID', 'no such device'))
      else retry.push(q)
    }
    return [...retry, ...later]
  }

  async function drain() {
    while (queue.length) {
      const batch = queue.splice(0, MAX_ROUND)
      try {
        queue.unshift(...(await round(batch)))
      } catch (e) {
        for (const q of batch) q.reject(e)
      }
    }
    running = false
  }

  return {
    /** Applies one change (with the others asked for in this turn); resolves once it is committed and announced. */
    apply(change: StateChange): Promise<StateOutcome> {
      return new Promise((resolve, reject) => {
        queue.push({ change, resolve, reject, attempts: 0, audit: auditOf() })
        if (!running) {
          running = true
          // a round serves every caller of this turn: it runs in none's audit scope, and writes each one's
          setImmediate(() => void detached(drain))
        }
      })
    },
    /** Changes waiting for their round. */
    get queued() {
      return queue.length
    },
  }
}

export type StateWriter = ReturnType<typeof stateWriter>
