import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { Overview } from '../schemas/overview.ts'
import { formatTime } from '../kernel/time.ts'

/** The window of `messagesPerMinute`: the last 60 seconds, sliding. */
const MINUTE_MS = 60_000

/** The fleet overview (GET /api/v1/overview): counts of the caller's tenant, read in one read transaction. */
export function overviewRoutes({ meta }: Deps) {
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/overview',
      tag: 'Overview',
      summary: 'Fleet overview: devices, online now, open alerts by severity, messages per minute',
      description:
        "The caller's tenant only. `messagesPerMinute` counts the uplink messages (events) received in the 60 seconds before `at`, by every node. Any role may read it.",
      response: Overview,
    },
    async (c) => {
      const now = Date.now()
      const n = await meta.overview.counts(c.get('tenant'), now - MINUTE_MS, now)
      const total = n.openAlerts[1] + n.openAlerts[2] + n.openAlerts[3] + n.openAlerts[4]
      return c.json({
        devices: n.devices,
        gateways: n.gateways,
        online: n.online,
        offline: Math.max(0, n.devices + n.gateways - n.online),
        blockedCount: n.blocked,
        openAlerts: { total, bySeverity: n.openAlerts },
        messagesPerMinute: n.messages,
        at: formatTime(now, c.get('tz')),
      })
    },
  )

  return r
}
