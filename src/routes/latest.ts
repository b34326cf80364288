import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { ApiError } from '../errors.ts'
import { LatestValues } from '../schemas/ingest.ts'
import { formatTime } from '../kernel/time.ts'

/** The last value of every data point of a device (GET /api/v1/devices/{deviceIntID}/latest). */
export function latestRoutes({ meta, pipeline }: Deps) {
  const r = new Router()
  const repo = meta.ingest

  r.route(
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
      if (!found) throw new ApiError('DATA_NOT_FOUND', { id: 'not found' })
      const last = await pipeline.latest(tenant, found.device.deviceID)
      const tz = c.get('tz')
      return c.json(
        found.points.map((p) => {
          const v = last.get(p.dataPointID)
          return {
            dataPointIntID: p.id,
            dataPointID: p.dataPointID,
            dataPointName: p.dataPointName,
            pointDataType: p.pointDataType,
            time: v ? formatTime(v.time, tz) : null,
            value: v ? v.value : null,
          }
        }),
      )
    },
  )

  return r
}
