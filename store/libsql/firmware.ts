import type { Db } from './db.ts'
import type { FirmwareInput, FirmwareRecord, FirmwareRepository } from '../meta/firmware.ts'
import { FIRMWARE_TABLE } from '../fields/firmware.ts'
import { NotFound } from '../errors.ts'
import { readRecords } from './records.ts'
import { TableRepo } from './table-repository.ts'

const FROM =
  'FROM firmware f JOIN products p ON p.id = f.product_int_id LEFT JOIN users u ON u.id = f.user_int_id'

/** Firmware packages of a tenant's products, with a generated firmwareID; their files are the caller's. */
export class FirmwareRepo extends TableRepo<typeof FIRMWARE_TABLE> implements FirmwareRepository {
  constructor(db: Db) {
    super(db, {
      list: FIRMWARE_TABLE,
      from: FROM,
      unique: { version: ['version', 'the product has a package of this version already'] },
      generatedId: { column: 'firmware_id', length: 8 },
      remove: {
        nameColumn: 'version',
        uses: {},
        missing: (missing) => `no firmware ${missing.join(', ')}`,
      },
    })
  }

  create(tenant: string, f: FirmwareInput, now: number): Promise<FirmwareRecord> {
    return this.insert(
      tenant,
      {},
      {
        product_int_id: f.productIntID,
        version: f.version,
        size: f.size,
        sha256: f.sha256,
        description: f.description,
        file: f.file,
        user_int_id: f.userIntID,
      },
      { now },
    )
  }

  async files(tenant: string, ids: number[]): Promise<string[]> {
    const rows = await this.db.all(
      'SELECT id, file FROM firmware WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))',
      [tenant, JSON.stringify(ids)],
    )
    const found = new Set(rows.map((r) => Number(r.id)))
    const missing = ids.filter((id) => !found.has(id))
    if (missing.length) throw new NotFound('ids', `no firmware ${missing.join(', ')}`)
    return rows.map((r) => String(r.file))
  }

  async forProduct(firmwareID: string, productIntID: number) {
    const [found] = await readRecords(
      this.db,
      { ...FIRMWARE_TABLE, file: { sql: 'f.file', read: FIRMWARE_TABLE.sha256.read } },
      `${FROM} WHERE f.firmware_id = ? AND f.product_int_id = ?`,
      [firmwareID, productIntID],
    )
    return found
  }

  async allFiles(): Promise<string[]> {
    return (await this.db.all('SELECT file FROM firmware')).map((r) => String(r.file))
  }
}
