/**
 * A device's state document between its stored row (store/meta/state.ts) and what callers see, and one change of
 * it: a merge patch of one side (src/rules/state.ts), the versions it moves, its keys' change times and the
 * `device.state` event announcing it.
 */
import { TooLarge } from '../kernel/errors.ts'
import type { StateEvent } from '../kernel/events.ts'
import {
  changedKeys,
  deltaOf,
  isObject,
  jsonEqual,
  mergePatch,
  stateBytes,
  STATE_LIMITS,
  type JsonObject,
  type StateSide,
} from '../rules/state.ts'
import { outboxOf, type StateWrite, type StoredState } from '../../store/types.ts'

/** The device a document belongs to. */
export interface StateOwner {
  id: number
  tenantID: string
  deviceID: string
}

/** A device's state document, parsed. Times are epoch ms. */
export interface StateDocument {
  deviceIntID: number
  deviceID: string
  desired: JsonObject
  reported: JsonObject
  delta: JsonObject
  version: number
  desiredVersion: number
  reportedVersion: number
  desiredAt: number | null
  reportedAt: number | null
  /** Each side's top-level keys with the time of their last change. */
  metadata: Record<StateSide, Record<string, { updatedAt: number }>>
}

const parseObject = (text: string): JsonObject => {
  const v: unknown = JSON.parse(text)
  return isObject(v) ? v : {}
}

const keyTimes = (text: string) => {
  const out: Record<string, { updatedAt: number }> = {}
  for (const [k, t] of Object.entries(parseObject(text)))
    if (typeof t === 'number') out[k] = { updatedAt: t }
  return out
}

/** The document of `owner` as stored (`stored` undefined: never written, an empty one at version 0). */
export function documentOf(owner: StateOwner, stored: StoredState | undefined): StateDocument {
  if (!stored)
    return {
      deviceIntID: owner.id,
      deviceID: owner.deviceID,
      desired: {},
      reported: {},
      delta: {},
      version: 0,
      desiredVersion: 0,
      reportedVersion: 0,
      desiredAt: null,
      reportedAt: null,
      metadata: { desired: {}, reported: {} },
    }
  return {
    deviceIntID: owner.id,
    deviceID: owner.deviceID,
    desired: parseObject(stored.desired),
    reported: parseObject(stored.reported),
    delta: parseObject(stored.delta),
    version: stored.version,
    desiredVersion: stored.desiredVersion,
    reportedVersion: stored.reportedVersion,
    desiredAt: stored.desiredAt,
    reportedAt: stored.reportedAt,
    metadata: { desired: keyTimes(stored.desiredKeys), reported: keyTimes(stored.reportedKeys) },
  }
}

/** The row that stores `doc` for `owner`. */
function rowOf(owner: StateOwner, doc: StateDocument): StoredState {
  const times = (side: StateSide) =>
    JSON.stringify(
      Object.fromEntries(Object.entries(doc.metadata[side]).map(([k, m]) => [k, m.updatedAt])),
    )
  return {
    deviceIntID: owner.id,
    tenantID: owner.tenantID,
    deviceID: owner.deviceID,
    desired: JSON.stringify(doc.desired),
    reported: JSON.stringify(doc.reported),
    delta: JSON.stringify(doc.delta),
    desiredKeys: times('desired'),
    reportedKeys: times('reported'),
    version: doc.version,
    desiredVersion: doc.desiredVersion,
    reportedVersion: doc.reportedVersion,
    desiredAt: doc.desiredAt,
    reportedAt: doc.reportedAt,
  }
}

/** One applied change: the new document, the write that stores it and the event announcing it. */
export interface AppliedChange {
  doc: StateDocument
  write: StateWrite
  event: StateEvent & { desired: JsonObject; deltaChanged: boolean }
}

/**
 * `doc` with the merge patch `patch` of `side` applied at `now`: undefined when nothing changes (no version moves,
 * no event). TooLarge when the side would pass STATE_LIMITS.bytes.
 */
export function applyPatch(
  owner: StateOwner,
  doc: StateDocument,
  side: StateSide,
  patch: JsonObject,
  now: number,
): AppliedChange | undefined {
  const before = doc[side]
  const after = mergePatch(before, patch)
  const changed = changedKeys(before, after)
  if (!changed.length) return undefined
  const bytes = stateBytes(after)
  if (bytes > STATE_LIMITS.bytes)
    throw new TooLarge(
      side,
      `the ${side} state would be ${bytes} bytes of JSON, over the limit of ${STATE_LIMITS.bytes}`,
    )
  const times = { ...doc.metadata[side] }
  for (const k of changed) {
    if (Object.hasOwn(after, k)) times[k] = { updatedAt: now }
    else delete times[k]
  }
  const desired = side === 'desired' ? after : doc.desired
  const reported = side === 'reported' ? after : doc.reported
  const delta = deltaOf(desired, reported)
  const next: StateDocument = {
    ...doc,
    desired,
    reported,
    delta,
    version: doc.version + 1,
    desiredVersion: doc.desiredVersion + (side === 'desired' ? 1 : 0),
    reportedVersion: doc.reportedVersion + (side === 'reported' ? 1 : 0),
    desiredAt: side === 'desired' ? now : doc.desiredAt,
    reportedAt: side === 'reported' ? now : doc.reportedAt,
    metadata: { ...doc.metadata, [side]: times },
  }
  const event: StateEvent = {
    tenantID: owner.tenantID,
    deviceIntID: owner.id,
    deviceID: owner.deviceID,
    side,
    version: next.version,
    desiredVersion: next.desiredVersion,
    reportedVersion: next.reportedVersion,
    changed,
    delta,
    at: now,
  }
  return {
    doc: next,
    write: {
      next: rowOf(owner, next),
      expected: doc.version,
      outbox: outboxOf('device.state', event, now),
    },
    event: { ...event, desired, deltaChanged: !jsonEqual(doc.delta, delta) },
  }
}

/** What a device receives on `state/delta`. */
export const deltaMessage = (doc: {
  desired: object
  delta: object
  version: number
  desiredVersion: number
}) => ({
  desired: doc.desired,
  delta: doc.delta,
  version: doc.version,
  desiredVersion: doc.desiredVersion,
})

/** What a device receives on `state/document` (its `clientToken` when it sent one). */
export function documentMessage(doc: StateDocument, clientToken?: string) {
  const { deviceIntID: _id, ...rest } = doc
  return clientToken === undefined ? rest : { ...rest, clientToken }
}
