/**
 * Where the tenant's devices are, through the public API: the devices a map can place (`GET /devices_located`,
 * 5,000 a page, a few fields each), located by their own `latitude`/`longitude`; a device without them, of a
 * product with a geolocation data point (`pointDataType` 6, `GET /data_points`), by that point's latest value
 * (`GET /devices_latest`, 500 devices a call). How many devices the tenant has comes from one `GET /devices`.
 * Then kept live from the event stream: `device.online`/`device.offline` set a device's status, a `telemetry`
 * value of a geolocation point moves (or places) a device located by its points.
 */
import { api } from '../api/client.ts'
import type { LatestValueWire, LocatedWire, PointItemWire } from '../api/wire.ts'
import { deviceOf, type LiveEvent, type Telemetry } from '../live.ts'

/** A device on the map. */
export interface Located {
  id: number
  deviceID: string
  name: string
  online: boolean
  lon: number
  lat: number
  /** The geolocation data point it is located by; undefined: by its own latitude and longitude. */
  point?: string
}

/** A device that a geolocation value may place: one without latitude/longitude, of a product that has such points. */
interface Candidate {
  id: number
  name: string
  online: boolean
  points: ReadonlySet<string>
}

/** The located devices by deviceID, and the devices their geolocation values may locate. */
export interface Fleet {
  located: Map<string, Located>
  candidates: Map<string, Candidate>
  /** Devices in the tenant (located or not). */
  total: number
}

const GEOLOCATION = 6
const LOCATED_PAGE = 5000
const LATEST_BATCH = 500

interface KeysetPage<T> {
  items: T[]
  meta: { count: number; next?: string | null }
}

/** A geolocation value (`"lon,lat"` as stored, `{lat, lng}`, `[lon, lat]`) → [lon, lat]; undefined if none. */
export function parseGeo(v: unknown): [number, number] | undefined {
  let pair: unknown[] | undefined
  if (typeof v === 'string') pair = v.split(',')
  else if (Array.isArray(v)) pair = v
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    pair = [o.lon ?? o.lng ?? o.longitude, o.lat ?? o.latitude]
  }
  if (pair?.length !== 2) return undefined
  const [lon, lat] = pair.map((x) => (typeof x === 'string' && x.trim() ? Number(x) : x))
  if (typeof lon !== 'number' || typeof lat !== 'number') return undefined
  if (!(Math.abs(lon) <= 180 && Math.abs(lat) <= 90)) return undefined
  return [lon, lat]
}

/** Every device a map can place, `progress` told how many have come (of the tenant's `total` devices). */
async function allLocated(
  total: number,
  progress: (n: number, of: number) => void,
): Promise<LocatedWire[]> {
  const out: LocatedWire[] = []
  let after = 0
  for (;;) {
    const q = new URLSearchParams({ afterID: String(after), _limit: String(LOCATED_PAGE) })
    const page = await api<{ items: LocatedWire[]; next: number | null }>(`/devices_located?${q}`)
    out.push(...page.items)
    progress(out.length, Math.max(total, out.length))
    if (page.next === null) return out
    after = page.next
  }
}

/** How many devices the tenant has (located or not). */
const deviceCount = async () => (await api<KeysetPage<unknown>>('/devices?_limit=1')).meta.count

/** productID → the dataPointIDs of its geolocation points. */
async function geoPoints(): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>()
  const q = new URLSearchParams({ pointDataType: String(GEOLOCATION), _limit: '1000' })
  const page = await api<KeysetPage<PointItemWire>>(`/data_points?${q}`)
  for (const p of page.items) {
    const product = String(p.productID)
    out.set(product, (out.get(product) ?? new Set()).add(p.dataPointID))
  }
  return out
}

/** The latest geolocation of each candidate that has one. */
async function latestGeo(candidates: Map<string, Candidate>, located: Map<string, Located>) {
  const ids = [...candidates.keys()]
  for (let i = 0; i < ids.length; i += LATEST_BATCH) {
    const batch = ids.slice(i, i + LATEST_BATCH)
    const q = `deviceIDs=${batch.map(encodeURIComponent).join(',')}`
    const r = await api<{ devices: Record<string, LatestValueWire[]> }>(`/devices_latest?${q}`)
    for (const [deviceID, rows] of Object.entries(r.devices)) {
      const c = candidates.get(deviceID)
      if (!c) continue
      // the newest value of any of its geolocation points
      let best: { at: string; where: [number, number]; point: string } | undefined
      for (const row of rows) {
        const where = c.points.has(row.dataPointID) ? parseGeo(row.value) : undefined
        if (where && row.time && (!best || row.time > best.at))
          best = { at: row.time, where, point: row.dataPointID }
      }
      if (best) located.set(deviceID, placed(deviceID, c, best.where, best.point))
    }
  }
}

const placed = (
  deviceID: string,
  c: Candidate,
  [lon, lat]: [number, number],
  point: string,
): Located => ({ id: c.id, deviceID, name: c.name, online: c.online, lon, lat, point })

/** Reads the fleet: its located devices and the candidates. */
export async function loadFleet(progress: (n: number, of: number) => void): Promise<Fleet> {
  const [total, points] = await Promise.all([deviceCount(), geoPoints()])
  const devices = await allLocated(total, progress)
  const located = new Map<string, Located>()
  const candidates = new Map<string, Candidate>()
  for (const d of devices) {
    const online = d.deviceStatus === 1
    const name = d.deviceName ?? d.deviceID
    if (typeof d.latitude === 'number' && typeof d.longitude === 'number')
      located.set(d.deviceID, {
        id: d.id,
        deviceID: d.deviceID,
        name,
        online,
        lon: d.longitude,
        lat: d.latitude,
      })
    else {
      const geo = points.get(String(d.productID))
      if (geo) candidates.set(d.deviceID, { id: d.id, name, online, points: geo })
    }
  }
  if (candidates.size) await latestGeo(candidates, located)
  return { located, candidates, total: Math.max(total, devices.length) }
}

/**
 * Applies an event of the stream to the fleet; answers what changed: `status` (a marker's colour), `moved` (a
 * position), or nothing.
 */
export function applyEvent(f: Fleet, e: LiveEvent): 'status' | 'moved' | undefined {
  if (e.type === 'device.online' || e.type === 'device.offline') {
    const id = deviceOf(e)
    const online = e.type === 'device.online'
    const c = id === undefined ? undefined : f.candidates.get(id)
    if (c) c.online = online
    const d = id === undefined ? undefined : f.located.get(id)
    if (!d || d.online === online) return undefined
    d.online = online
    return 'status'
  }
  if (e.type !== 'telemetry') return undefined
  const t = e.data as Telemetry
  const c = f.candidates.get(t.deviceID)
  if (!c) return undefined
  for (const point of c.points) {
    const where = parseGeo(t.values[point])
    if (!where) continue
    f.located.set(t.deviceID, placed(t.deviceID, c, where, point))
    return 'moved'
  }
  return undefined
}
