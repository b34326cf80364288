import type { Db } from '../../store/libsql/db.ts'
import { randomId } from '../../src/kernel/secrets.ts'

/**
 * `n` devices of one product in multi-row inserts of 500 (the API would take minutes for 10,000), created a second
 * apart so that they sort by creation as stored.
 */
export async function insertDevices(db: Db, tenantID: string, productIntID: number, n: number) {
  for (let start = 0; start < n; start += 500) {
    const rows = Array.from({ length: Math.min(500, n - start) }, (_, i) => start + i)
    await db.run(
      `INSERT INTO devices (tenant_id, kind, product_int_id, device_id, device_name, device_username, token, auth_type,
         device_type, up_link_system, manufacturer, user_int_id, create_at)
       VALUES ${rows.map(() => "(?, 'device', ?, ?, ?, ?, ?, 1, 1, 1, 'ACME', 1, ?)").join(', ')}`,
      rows.flatMap((i) => [
        tenantID,
        productIntID,
        `bench-${i}`,
        `device ${i}`,
        randomId(36),
        randomId(36),
        Date.now() - (n - i) * 1000,
      ]),
    )
  }
}
