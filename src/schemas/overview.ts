import { z } from 'zod'
import { Timestamp } from './common.ts'

const Count = z.number().int().min(0)

/** `GET /api/v1/overview`: the tenant's fleet at a glance. */
export const Overview = z
  .object({
    devices: Count.meta({ description: 'Devices of the tenant (gateways not included)' }),
    gateways: Count.meta({ description: 'Gateways of the tenant' }),
    online: Count.meta({ description: 'Devices and gateways connected now (deviceStatus 1)' }),
    offline: Count.meta({
      description: 'Devices and gateways not connected: devices + gateways - online',
    }),
    blockedCount: Count.meta({
      description: 'Devices and gateways blocked (blocked 1)',
    }),
    openAlerts: z.object({
      total: Count,
      bySeverity: z
        .object({ 1: Count, 2: Count, 3: Count, 4: Count })
        .meta({ description: 'Open (current) alerts by alertSeverity, 1 to 4' }),
    }),
    messagesPerMinute: Count.meta({
      description:
        'Uplink messages (rows of the events log, rejected ones included) received in the 60 seconds before `at`, from every node',
    }),
    at: Timestamp.meta({ description: 'When the figures were read, in the service time zone' }),
  })
  .meta({ id: 'Overview' })
