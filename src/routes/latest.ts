import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { NotFound } from '../kernel/errors.ts'
import { DevicesLatest, DevicesLatestQuery, LatestValues } from '../schemas/ingest.ts'
import { DevicesLocated, DevicesLocatedQuery, MAX_LOCATED_PAGE } from '../schemas/devices.ts'
import { formatTime } from '../kernel/time.ts'
import type { ModelPoint } from '../../store/types.ts'
import type { LastValue } from '../../store/telemetry.ts'

/** Every data point of a product with its last value and time (null when none), in the wire's time zone. */
function latestRows(
  points: readonly ModelPoint[],
  last: Map<string, LastValue> | undefined,
  tz: string,
) {
  return points.map((p) => {
    const v = last?.get(p.dataPointID)
    return {
      dataPointIntID: p.id,
      dataPointID: p.dataPointID,
      dataPointName: p.dataPointName,
      pointDataType: p.pointDataType,
      unit: p.unitSymbol || p.unitName || null,
      time: v ? formatTime(v.time, tz) : null,
      value: v ? v.value : null,
    }
  })
}

/**
 * The last value of every data point of a device (GET /api/v1/devices/{deviceIntID}/latest), and of many devices
 * at once (GET /api/v1/devices_latest?deviceIDs=a,b); where the devices are (GET /api/v1/devices_located).
 */
export function latestRoutes({ meta, pipeline }: Deps) {
  const r = new Router()
  const repo = meta.ingest

  r.typed(
    {
      method: 'get',
      path: '/devices/:id/latest',
      tag: 'Devices',
      summary: "Last value of each of the device's data points",
      description:
        "Every data point of the device's product, with its last stored value and time (null when none).",
      response: LatestValues,
    },
    async (c, { id }) => {
      const tenant = c.get('tenant')
      const found = await repo.deviceWithPoints(tenant, id)
      if (!found) throw new NotFound()
      const last = await pipeline.latest(tenant, found.device.deviceID)
      return c.json(latestRows(found.points, last, c.get('tz')))
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/devices_latest',
      tag: 'Devices',
      summary: 'Last values of many devices in one call (?deviceIDs=a,b, at most 1,000)',
      description:
        "For each deviceID of the caller's tenant, what `GET /devices/{id}/latest` answers, keyed by deviceID; " +
        "deviceIDs that are no device of the tenant (unknown or another tenant's) are listed in `notFound`. " +
        'One read of the metadata and one of the telemetry store, whatever the number of devices.',
      query: DevicesLatestQuery,
      response: DevicesLatest,
    },
    async (c, { query }) => {
      const tenant = c.get('tenant')
      const found = await repo.devicesWithPoints(tenant, query.deviceIDs)
      const last = await pipeline.latestOf(tenant, [...found.keys()])
      const tz = c.get('tz')
      const devices: Record<string, ReturnType<typeof latestRows>> = {}
      const notFound: string[] = []
      for (const id of query.deviceIDs) {
        const f = found.get(id)
        if (f) devices[id] = latestRows(f.points, last.get(id), tz)
        else notFound.push(id)
      }
      return c.json({ devices, notFound })
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/devices_located',
      tag: 'Devices',
      summary: 'Devices a map can place, a few fields each, by id',
      description:
        "The tenant's devices with a latitude and a longitude, and those without whose product has a geolocation " +
        'data point (their latest value of it places them, `GET /devices_latest`): id, deviceID, deviceName, ' +
        `deviceStatus, productID, latitude, longitude. Pages of up to ${MAX_LOCATED_PAGE} by id; \`next\` is the ` +
        '`afterID` of the next page (null on the last).',
      query: DevicesLocatedQuery,
      response: DevicesLocated,
    },
    async (c, { query }) => {
      const limit = query._limit ?? MAX_LOCATED_PAGE
      const items = await meta.devices.located(c.get('tenant'), query.afterID ?? 0, limit)
      return c.json({ items, next: items.length === limit ? items[items.length - 1]!.id : null })
    },
  )

  return r
}
