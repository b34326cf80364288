import type { Db } from './db.ts'
import type {
  CertDetailRecord,
  CertDeviceRecord,
  CertInput,
  CertRepository,
  ListArgs,
  Page,
} from '../types.ts'
import { CERT_DETAIL_TABLE, CERT_DEVICE_TABLE, CERT_TABLE } from '../fields/access.ts'
import { Conflict, NotFound } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'
import { TableRepo } from './table-repository.ts'
import { randomId } from '../../src/kernel/secrets.ts'
import { createCa, issueClientCert, type CertAndKey } from '../../src/kernel/pki.ts'

const deviceList = tableList(CERT_DEVICE_TABLE, {
  from: 'FROM cert_devices cd JOIN devices d ON d.id = cd.device_int_id',
  where: 'd.tenant_id = ? AND cd.cert_int_id = ?',
  timeField: 'cd.create_at',
  idField: 'd.id',
})

/**
 * Certificates of a tenant, the tenant's CA that signs them, and their bindings to devices
 * (an authType 2 device presents a client certificate whose CN is that of an enabled,
 * bound certificate). A list answers id, name, enable and createAt, `get` the PEM texts too. A delete is
 * refused while a certificate is bound to devices.
 */
export class CertsRepo
  extends TableRepo<typeof CERT_TABLE, typeof CERT_DETAIL_TABLE, Partial<CertInput>>
  implements CertRepository
{
  constructor(db: Db) {
    super(db, {
      list: CERT_TABLE,
      detail: CERT_DETAIL_TABLE,
      from: 'FROM certs c LEFT JOIN users u ON u.id = c.user_int_id',
      listFrom: 'FROM certs c',
      unique: { name: 'name' },
      remove: {
        nameColumn: 'name',
        uses: { devices: 'SELECT count(*) FROM cert_devices cd WHERE cd.cert_int_id = x.id' },
        refused: (r) =>
          `certificate ${r.id} (${r.name}) is still bound to ${r.uses[0]![1]} devices`,
      },
    })
  }

  /** The certificate (PEM) of the tenant's CA, if it has one yet (the broker verifies client certificates with it). */
  async caCert(tenant: string): Promise<string | undefined> {
    const row = await this.db.one('SELECT cert FROM tenant_cas WHERE tenant_id = ?', [tenant])
    return row ? String(row.cert) : undefined
  }

  /**
   * The tenant's CA (certificate and key), created on first use. Two concurrent first uses may both generate
   * one: the first stored wins and both callers get it. The key is for signing only; the API shows the
   * certificate alone, as `root`. The broker's TLS listener may use the certificate to verify clients.
   */
  async ca(tenant: string): Promise<CertAndKey> {
    const read = () => this.db.one('SELECT cert, key FROM tenant_cas WHERE tenant_id = ?', [tenant])
    let row = await read()
    if (!row) {
      const made = await createCa(tenant)
      await this.db.run(
        'INSERT OR IGNORE INTO tenant_cas (tenant_id, cert, key, create_at) VALUES (?, ?, ?, ?)',
        [tenant, made.cert, made.key, Date.now()],
      )
      row = await read()
    }
    return { cert: String(row!.cert), key: String(row!.key) }
  }

  /** Issues a key pair and a client certificate signed by the tenant's CA and stores them; Conflict('name'). */
  async create(
    tenant: string,
    userIntID: number | null,
    input: CertInput,
  ): Promise<CertDetailRecord> {
    await this.assertNameFree(tenant, input.name)
    const ca = await this.ca(tenant)
    const cn = input.CN ?? randomId(16)
    const issued = await issueClientCert(ca, cn)
    return this.insert(
      tenant,
      { ...input, CN: cn, cert: issued.cert, key: issued.key, root: ca.cert },
      { user_int_id: userIntID },
    )
  }

  private async assertNameFree(tenant: string, name: string, exceptID = 0) {
    const sql = 'SELECT id FROM certs WHERE tenant_id = ? AND name = ? AND id <> ?'
    const r = await this.db.one(sql, [tenant, name, exceptID])
    if (r) throw new Conflict('name')
  }

  /** Edits name and enable only; the rest of a certificate is fixed when it is issued. */
  override async update(
    tenant: string,
    id: number,
    input: Partial<Pick<CertInput, 'name' | 'enable'>>,
  ): Promise<CertDetailRecord> {
    await this.get(tenant, id)
    if (input.name !== undefined) await this.assertNameFree(tenant, input.name, id)
    return this.write(tenant, id, { name: input.name, enable: input.enable })
  }

  /** A page of the devices bound to certificate `id` ({id, deviceID, deviceName}). */
  async devices(tenant: string, id: number, q: ListArgs): Promise<Page<CertDeviceRecord>> {
    await this.get(tenant, id)
    return listPage(this.db, deviceList, [tenant, id], q)
  }

  /** Binds devices of the tenant to certificate `id`; binding twice is no change; NotFound('devicesIntID'). */
  async bindDevices(tenant: string, id: number, deviceIntIDs: number[]): Promise<void> {
    await this.get(tenant, id)
    const unique = [...new Set(deviceIntIDs)]
    const found = await this.db.all(
      `SELECT id FROM devices WHERE tenant_id = ? AND id IN (${marks(unique.length)})`,
      [tenant, ...unique],
    )
    if (found.length !== unique.length) {
      const have = new Set(found.map((r) => Number(r.id)))
      const missing = unique.filter((d) => !have.has(d))
      throw new NotFound('devicesIntID', `no device ${missing.join(', ')}`)
    }
    const now = Date.now()
    await this.db.batch(
      unique.map((d) => ({
        sql: 'INSERT OR IGNORE INTO cert_devices (cert_int_id, device_int_id, create_at) VALUES (?, ?, ?)',
        args: [id, d, now],
      })),
    )
  }

  /** Unbinds devices (record ids) from certificate `id`: all or none; NotFound('ids') for one not bound. */
  async unbindDevices(tenant: string, id: number, deviceIntIDs: number[]): Promise<void> {
    await this.get(tenant, id)
    const bound = await this.db.all(
      `SELECT cd.device_int_id AS id FROM cert_devices cd JOIN devices d ON d.id = cd.device_int_id
       WHERE d.tenant_id = ? AND cd.cert_int_id = ? AND cd.device_int_id IN (${marks(deviceIntIDs.length)})`,
      [tenant, id, ...deviceIntIDs],
    )
    if (bound.length !== deviceIntIDs.length)
      throw new NotFound('ids', 'not bound to this certificate')
    await this.db.run(
      `DELETE FROM cert_devices WHERE cert_int_id = ? AND device_int_id IN (${marks(deviceIntIDs.length)})`,
      [id, ...deviceIntIDs],
    )
  }

  /**
   * The common names of the enabled certificates bound to a device, for the broker: an authType 2 device may
   * connect with a client certificate whose CN is one of these. Only certificates of the device's
   * own tenant count.
   */
  async certsForDevice(deviceIntID: number): Promise<string[]> {
    const rows = await this.db.all(
      `SELECT DISTINCT c.cn AS cn FROM cert_devices cd
       JOIN certs c ON c.id = cd.cert_int_id
       JOIN devices d ON d.id = cd.device_int_id
       WHERE cd.device_int_id = ? AND c.enable = 1 AND c.tenant_id = d.tenant_id
       ORDER BY c.cn`,
      [deviceIntID],
    )
    return rows.map((r) => String(r.cn))
  }
}
