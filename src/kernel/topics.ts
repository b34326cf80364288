/**
 * The topic rules: MQTT topics and topic filters (MQTT 3.1.1 §4.7), the device mountpoint
 * `/{protocol}/{tenantID}/{productID}/{deviceID}/{topic}` and the group topic
 * `/{protocol}/{tenantID}/{productID}/group/{groupID}`. The brokers and HTTP ingest (ingest/), the command
 * services (src/services/) and onboarding place and read topics with these.
 */

/** What places a device's topics: its product's protocol and the parts of its mountpoint. */
export interface MountedDevice {
  cloudProtocol: number
  tenantID: string
  productID: string
  deviceID: string
}

/** Lower-case protocol names of the mountpoint. */
export const PROTOCOL_NAMES: Record<number, string> = {
  1: 'mqtt',
  2: 'coap',
  3: 'lwm2m',
  4: 'lora',
  5: 'http',
  6: 'websocket',
  7: 'modbus',
}

/** Each device object's last mountpoint, with the fields it was built from. */
const mountpoints = new WeakMap<MountedDevice, MountedDevice & { prefix: string }>()

/**
 * The full topic prefix of a device: `/{protocol}/{tenantID}/{productID}/{deviceID}/`. Remembered per device object
 * (every uplink asks for its session's device two or three times) and built again when one of its fields changed.
 */
export function mountpoint(d: MountedDevice): string {
  const hit = mountpoints.get(d)
  if (
    hit !== undefined &&
    hit.deviceID === d.deviceID &&
    hit.productID === d.productID &&
    hit.tenantID === d.tenantID &&
    hit.cloudProtocol === d.cloudProtocol
  )
    return hit.prefix
  const { cloudProtocol, tenantID, productID, deviceID } = d
  const prefix = `/${PROTOCOL_NAMES[cloudProtocol] ?? 'mqtt'}/${tenantID}/${productID}/${deviceID}/`
  mountpoints.set(d, { cloudProtocol, tenantID, productID, deviceID, prefix })
  return prefix
}

/** Relative topics compare without leading or trailing slashes (`/data/t1/` matches `data/t1`). */
export function normalizeTopic(topic: string): string {
  // every uplink's topic is normalized to find its stream: most have no slash at either end to drop
  const last = topic.length - 1
  if (last < 0 || (topic.charCodeAt(0) !== 0x2f && topic.charCodeAt(last) !== 0x2f)) return topic
  return topic.replace(/^\/+|\/+$/g, '')
}

/** A data stream a device reports on, as uplinks are matched to it: its topic and the dataPointIDs it carries. */
export interface StreamModel {
  id: number
  topic: string
  streamType: number
  dataPointIDs: Set<string>
}

/** Stream types a device reports on (streamType 1 device data report, 3 gateway data report). */
const REPORT_TYPES = new Set([1, 3])

/**
 * The report streams of a product by normalized topic (an uplink's relative topic finds its stream here; of two on
 * one topic the later wins), each with the dataPointIDs of its points.
 */
export function reportStreams(
  streams: ReadonlyArray<{ id: number; topic: string; streamType: number; pointIntIDs: number[] }>,
  points: ReadonlyArray<{ id: number; dataPointID: string }>,
): Map<string, StreamModel> {
  const byIntID = new Map(points.map((p) => [Number(p.id), p]))
  const out = new Map<string, StreamModel>()
  for (const s of streams) {
    if (!REPORT_TYPES.has(s.streamType)) continue
    const ids = s.pointIntIDs
      .map((id) => byIntID.get(id)?.dataPointID)
      .filter((x): x is string => x !== undefined)
    out.set(normalizeTopic(s.topic), {
      id: s.id,
      topic: s.topic,
      streamType: s.streamType,
      dataPointIDs: new Set(ids),
    })
  }
  return out
}

/** True when `filter` (may hold `+` and `#`) matches the topic name `topic` (no wildcards). §4.7.1 */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/')
  const t = topic.split('/')
  for (let i = 0; i < f.length; i++) {
    const level = f[i]
    if (level === '#') return true // matches the parent level too: `a/#` matches `a`
    if (i >= t.length) return false
    if (level !== '+' && level !== t[i]) return false
  }
  return f.length === t.length
}

/** True when every topic `inner` can match is also matched by `outer` (outer covers inner). */
export function filterCovers(outer: string, inner: string): boolean {
  const o = outer.split('/')
  const n = inner.split('/')
  for (let i = 0; i < o.length; i++) {
    const level = o[i]
    if (level === '#') return true
    if (i >= n.length) return false
    const other = n[i]
    if (other === '#') return false
    if (level === '+') continue
    if (other === '+' || other !== level) return false
  }
  return o.length === n.length
}

/** True when some topic name matches both filters (a subscription to one could receive a topic of the other). */
export function filtersIntersect(a: string, b: string): boolean {
  const x = a.split('/')
  const y = b.split('/')
  const n = Math.max(x.length, y.length)
  for (let i = 0; i < n; i++) {
    const p = x[i]
    const q = y[i]
    if (p === '#' || q === '#') return true
    if (p === undefined || q === undefined) return false
    if (p !== '+' && q !== '+' && p !== q) return false
  }
  return true
}

/** True when the topic filter holds a wildcard level. */
export const hasWildcard = (filter: string) => filter.includes('+') || filter.includes('#')

/** A full topic taken apart into the device it belongs to and the relative topic. */
export interface MountedTopic {
  protocol: string
  tenantID: string
  productID: string
  deviceID: string
  /** The topic relative to the device's mountpoint (may be empty). */
  topic: string
}

const PROTOCOLS = new Set(Object.values(PROTOCOL_NAMES))

/** Parses `/{protocol}/{tenantID}/{productID}/{deviceID}/{topic}`; undefined when it is not a mountpoint topic. */
export function parseMounted(full: string): MountedTopic | undefined {
  const levels = full.split('/')
  if (levels.length < 6 || levels[0] !== '') return undefined
  const [, protocol, tenantID, productID, deviceID] = levels as [
    string,
    string,
    string,
    string,
    string,
  ]
  if (!PROTOCOLS.has(protocol) || !tenantID || !productID || !deviceID) return undefined
  return { protocol, tenantID, productID, deviceID, topic: levels.slice(5).join('/') }
}

/** The full topic of a device's relative topic. */
export function mountedTopic(device: MountedDevice, topic: string): string {
  return mountpoint(device) + topic
}

/**
 * The topic relative to the device's mountpoint, or undefined when `full` is not strictly under it
 * (another device's prefix, the prefix itself, or anything outside).
 */
export function relativeTopic(device: MountedDevice, full: string) {
  const prefix = mountpoint(device)
  if (!full.startsWith(prefix) || full.length === prefix.length) return undefined
  return full.slice(prefix.length)
}

/** The topic a member receives a group's messages on: `group/{groupID}` (relative, like `inbox`). */
export const groupRelative = (groupID: string) => `group/${groupID}`

/**
 * The full topic of group `groupID` of the device's product, `/{protocol}/{tenantID}/{productID}/group/{groupID}`:
 * outside the device's mountpoint, so it reaches it only through the subscription the broker makes for a member.
 */
export function groupTopic(device: Omit<MountedDevice, 'deviceID'>, groupID: string): string {
  const protocol = PROTOCOL_NAMES[device.cloudProtocol] ?? 'mqtt'
  return `/${protocol}/${device.tenantID}/${device.productID}/${groupRelative(groupID)}`
}

/** A topic or topic filter a device gave, placed under its mountpoint. */
export interface DeviceTopic {
  /** The full topic (or filter): what the broker routes on and the ACL checks. */
  full: string
  /** The part under the device's mountpoint. */
  relative: string
  /** True when the device gave the full topic, false when it gave the relative one. */
  absolute: boolean
}

/**
 * Places a topic or filter a device gave under its mountpoint, as a listener mountpoint does: one that starts with
 * the device's own full prefix is taken as it is; any other is relative and gets the prefix in front. Undefined
 * when it names something outside: a `$` system topic, the bare prefix, or a full topic of another mountpoint or
 * above one (`/mqtt/…`, `/+/…`, `/#`).
 */
export function deviceTopic(device: MountedDevice, topic: string): DeviceTopic | undefined {
  const prefix = mountpoint(device)
  if (topic.startsWith(prefix)) {
    const relative = topic.slice(prefix.length)
    return relative ? { full: topic, relative, absolute: true } : undefined
  }
  if (topic.startsWith('$') || namesMountpoint(topic)) return undefined
  return { full: prefix + topic, relative: topic, absolute: false }
}

/** True when the topic or filter starts like a full topic: `/{protocol}/`, `/+` or `/#`. */
function namesMountpoint(topic: string): boolean {
  if (!topic.startsWith('/')) return false
  const end = topic.indexOf('/', 1)
  const first = end < 0 ? topic.slice(1) : topic.slice(1, end)
  return first === '+' || first === '#' || PROTOCOLS.has(first)
}

/**
 * A command's topic under the device's mountpoint, placed as the broker places a device's own topics (the device's
 * full topic or a relative one; leading slashes of a relative one dropped): the relative topic, or undefined when it
 * is empty, outside the mountpoint or holds a wildcard.
 */
export function commandTopic(device: MountedDevice, topic: string): string | undefined {
  const rel = deviceTopic(device, topic)?.relative.replace(/^\/+/, '')
  return !rel || /[+#]/.test(rel) ? undefined : rel
}

/**
 * The topic of a message a device sent over HTTP: the device's full topic (or its bare prefix) made relative, any
 * other taken as relative as it is.
 */
export function uplinkTopic(device: MountedDevice, topic: string): string {
  const prefix = mountpoint(device)
  return topic.startsWith(prefix) ? topic.slice(prefix.length) : topic
}
