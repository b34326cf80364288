import type { AclRule, PolicyRepository } from '../store/types.ts'
import type { EventBus } from '../src/kernel/events.ts'
import type { DeviceIdentity } from './types.ts'
import {
  filterCovers,
  filtersIntersect,
  hasWildcard,
  relativeTopic,
  topicMatches,
} from '../src/kernel/topics.ts'

export type { AclRule }

interface Rules {
  allow: string[]
  deny: string[]
}

interface DeviceRules {
  publish: Rules
  subscribe: Rules
}

export const ACL_CACHE_MAX = 100_000

/** A device's rules as cached, with the topic of its last publish and whether it was allowed. */
interface CachedRules {
  tenantID: string
  rules: DeviceRules
  lastTopic?: string
  lastDevice?: DeviceIdentity
  lastAllowed?: boolean
}

const PUBLISH = 0
const SUBSCRIBE = 1
const BOTH = 2

/** Splits a device's policy rules by access and effect. */
export function compileRules(rules: readonly AclRule[]): DeviceRules {
  const out: DeviceRules = { publish: { allow: [], deny: [] }, subscribe: { allow: [], deny: [] } }
  for (const r of rules) {
    const effect = r.allow === 1 ? 'allow' : 'deny'
    if (r.access === PUBLISH || r.access === BOTH) out.publish[effect].push(r.topic)
    if (r.access === SUBSCRIBE || r.access === BOTH) out.subscribe[effect].push(r.topic)
  }
  return out
}

/**
 * May a device publish to `relative` (a topic name under its mountpoint)? A matching deny rule wins; when the
 * device has allow rules for publishing, one must match; with none, its whole prefix is allowed.
 */
export function publishAllowed(rules: Rules, relative: string): boolean {
  if (rules.deny.some((f) => topicMatches(f, relative))) return false
  return rules.allow.length === 0 || rules.allow.some((f) => topicMatches(f, relative))
}

/**
 * May a device subscribe to `relative` (a filter under its mountpoint)? Refused when the filter could receive a
 * topic a deny rule names; when the device has allow rules for subscribing, one must cover the whole filter.
 */
export function subscribeAllowed(rules: Rules, relative: string): boolean {
  if (rules.deny.some((f) => filtersIntersect(f, relative))) return false
  return rules.allow.length === 0 || rules.allow.some((f) => filterCovers(f, relative))
}

/**
 * Topic access of devices: a device reaches only topics under its own mountpoint
 * `/{protocol}/{tenantID}/{productID}/{deviceID}/`, narrowed by the policies bound to it (allow/deny, publish/
 * subscribe, `+`/`#` filters relative to the mountpoint). Topics and filters given here are FULL topics.
 * Rules are cached per device (bounded) and dropped on `acl.changed` and `device.changed`.
 */
export class AclChecker {
  private cache = new Map<number, CachedRules>()
  private generation = 0

  constructor(
    private readonly policies: Pick<PolicyRepository, 'rulesOfDevice'>,
    bus: EventBus,
    private readonly max = ACL_CACHE_MAX,
  ) {
    bus.on('acl.changed', (e) => {
      this.generation++
      if (e.deviceIntIDs === 'all') {
        for (const [id, v] of [...this.cache]) if (v.tenantID === e.tenantID) this.cache.delete(id)
      } else for (const id of e.deviceIntIDs) this.cache.delete(id)
    })
    const drop = (e: { id: number }) => {
      this.generation++
      this.cache.delete(e.id)
    }
    bus.on('device.changed', drop)
    bus.on('device.deleted', drop)
  }

  /**
   * May the device publish to the full topic `topic`? Answered at once (no promise) when the device's rules are
   * cached: the check of every uplink.
   */
  canPublish(device: DeviceIdentity, topic: string): boolean | Promise<boolean> {
    const hit = this.cache.get(device.id)
    // a connection publishes to the same topic message after message: its last answer is kept with the device's
    // rules (and goes with them on a change), for the same identity (a reconnect may bring a changed mountpoint)
    if (hit?.lastTopic === topic && hit.lastDevice === device) return hit.lastAllowed!
    const relative = relativeTopic(device, topic)
    if (relative === undefined || hasWildcard(topic)) return false
    if (!hit) return this.rules(device).then((rules) => publishAllowed(rules.publish, relative))
    const allowed = publishAllowed(hit.rules.publish, relative)
    hit.lastTopic = topic
    hit.lastDevice = device
    hit.lastAllowed = allowed
    return allowed
  }

  /** May the device subscribe to the full topic filter `filter`? A wildcard above its own prefix is refused. */
  async canSubscribe(device: DeviceIdentity, filter: string): Promise<boolean> {
    const relative = relativeTopic(device, filter)
    if (relative === undefined) return false
    return subscribeAllowed((await this.rules(device)).subscribe, relative)
  }

  private async rules(device: DeviceIdentity): Promise<DeviceRules> {
    const hit = this.cache.get(device.id)
    if (hit) return hit.rules
    const generation = this.generation
    const rules = compileRules(await this.policies.rulesOfDevice(device.tenantID, device.id))
    if (generation === this.generation) {
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!)
      this.cache.set(device.id, { tenantID: device.tenantID, rules })
    }
    return rules
  }
}
