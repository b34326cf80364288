import { randomId } from '../../src/kernel/secrets.ts'
import type { TestService } from './service.ts'
import type { ScheduleInput } from '../../store/types.ts'

/**
 * Direct inserts for tests of resources that need devices before the device API is involved.
 * Prefer the API (POST /api/v1/devices) in tests of behaviour; use these only to set up large or odd data.
 */
export async function insertDevice(
  t: TestService,
  tenantID: string,
  productIntID: number,
  fields: {
    deviceName?: string
    deviceID?: string
    kind?: 'device' | 'gateway'
    gatewayIntID?: number
    parentIntID?: number
  } = {},
): Promise<number> {
  const r = await t.db.run(
    `INSERT INTO devices (tenant_id, kind, product_int_id, device_id, device_name, device_username, token, auth_type,
       device_type, up_link_system, gateway_int_id, parent_device_int_id, create_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?, ?)`,
    [
      tenantID,
      fields.kind ?? 'device',
      productIntID,
      fields.deviceID ?? randomId(12),
      fields.deviceName ?? `dev-${randomId(8)}`,
      randomId(36),
      randomId(36),
      fields.gatewayIntID ? 2 : fields.parentIntID ? 3 : 1,
      fields.gatewayIntID ?? null,
      fields.parentIntID ?? null,
      Date.now(),
    ],
  )
  return r.lastId
}

/** The tenantID of a client (from its session). */
export async function tenantOf(t: TestService): Promise<string> {
  const row = await t.db.one('SELECT tenant_id FROM users ORDER BY id LIMIT 1')
  return String(row?.tenant_id)
}

/** A schedule's store input: device 1 ('d1') sent 'p' every minute from `nextRunAt`, `extra` over it. */
export const scheduleInput = (
  nextRunAt: number,
  extra: Partial<ScheduleInput> = {},
): ScheduleInput => ({
  targetIntID: 1,
  targetID: 'd1',
  scheduleName: 's',
  scheduleType: 2,
  crontabTime: null,
  IntervalMinute: 1,
  cron: null,
  topic: null,
  payload: 'p',
  qos: null,
  timeout: null,
  ttl: null,
  needAck: null,
  enable: 1,
  nextRunAt,
  ...extra,
})

/** A product's detail as the API answers it (in English): `pid`, two devices, created 2026-01-02 03:04:05 UTC. */
export const productAnswer = {
  id: 1,
  productID: 'pid',
  productName: 'p',
  description: null,
  cloudProtocol: 1,
  cloudProtocolLabel: 'MQTT',
  deviceCount: 2,
  createUser: null,
  userIntID: null,
  createAt: '2026-01-02 03:04:05',
  updateAt: null,
  rawRetentionDays: null,
  eventRetentionDays: null,
}
