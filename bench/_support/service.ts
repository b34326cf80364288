/**
 * The service under benchmark, in the bench's own process on a temp data directory, with an admin logged in:
 * `api(method, path, body?)` calls it as that admin. `seedDevices` inserts many devices of a product at once.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/kernel/config.ts'
import { startService } from '../../src/service.ts'
import { openSql } from '../../test/_support/service.ts'
import { randomId } from '../../src/kernel/secrets.ts'
import { mountpoint } from '../../src/kernel/topics.ts'

/** The fields of an API answer the benches read (a record, a page, a login); each bench names what it reads. */
export interface ApiRecord {
  id: number
  productID: string
  deviceID: string
  groupID: string
  token: string
  tenantID: string
  items: ApiRecord[]
  [field: string]: unknown
}

export async function startBenchService(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `devicecloud-${name}-bench-`))
  const svc = await startService(
    loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_WS_PORT: '0',
      ADMIN_EMAIL: 'b@b.io',
      ADMIN_PASSWORD: 'bench-password',
      LOG_LEVEL: 'error',
      // to compare the SQL in worker threads with the SQL on the event loop: DB_WORKERS=off npm run bench -- x
      DB_WORKERS: process.env.DB_WORKERS,
      // ingest and database tuning from the bench's environment: INGEST_BATCH_POINTS=20000 npm run bench -- ingest
      ...Object.fromEntries(
        Object.entries(process.env).filter(([k]) => /^(INGEST|DB|TELEMETRY)_/.test(k)),
      ),
    }),
  )
  const call = async <T = ApiRecord>(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<T> => {
    const send = () =>
      fetch(svc.url + path, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    // a seed that held this process's thread for seconds lets the service's keep-alive timer and the client's
    // fire together: the first request after it may meet a socket the service is closing (ECONNRESET); a GET is
    // sent again, as HTTP clients do
    const r = await send().catch((err: unknown) => {
      const code = (err as { cause?: { code?: string } }).cause?.code
      if (method === 'GET' && code === 'ECONNRESET') return send()
      throw err
    })
    return (await r.json()) as T
  }
  const { token, tenantID } = await call('POST', '/api/v1/login', {
    email: 'b@b.io',
    password: 'bench-password',
  })
  const bench = {
    svc,
    dir,
    token,
    tenantID,
    api: <T = ApiRecord>(method: string, path: string, body?: unknown) =>
      call<T>(method, path, body, token),
    /** A product with `points` numeric data points p0, p1 ... on one report stream `telemetry`. */
    telemetryProduct: async (points: number, productName = 'bench') => {
      const product = await call(
        'POST',
        '/api/v1/products',
        { productName, cloudProtocol: 1 },
        token,
      )
      const ids: number[] = []
      for (let i = 0; i < points; i++) {
        const dp = await call(
          'POST',
          '/api/v1/data_points',
          {
            productIntID: product.id,
            dataPointName: `point ${i}`,
            dataPointID: `p${i}`,
            pointDataType: 1,
            dataTransType: 1,
          },
          token,
        )
        ids.push(dp.id)
      }
      await call(
        'POST',
        '/api/v1/data_streams',
        {
          productID: product.productID,
          streamName: 'telemetry',
          streamType: 1,
          streamDataType: 1,
          topic: 'telemetry',
          dataPoints: ids,
        },
        token,
      )
      return product as { id: number; productID: string }
    },
    /** Inserts devices (deviceID, username, token) of `productIntID` straight into the metadata store. */
    seedDevices: async (
      productIntID: number,
      devices: ReadonlyArray<{ deviceID: string; username: string; token: string }>,
    ) => {
      const sql = await openSql(svc)
      for (let s = 0; s < devices.length; s += 500) {
        const rows = devices.slice(s, s + 500)
        await sql.run(
          `INSERT INTO devices (tenant_id, kind, product_int_id, device_id, device_name, device_username, token,
             auth_type, device_type, up_link_system, create_at)
           VALUES ${rows.map(() => "(?, 'device', ?, ?, ?, ?, ?, 1, 1, 1, ?)").join(', ')}`,
          rows.flatMap((d) => [
            tenantID,
            productIntID,
            d.deviceID,
            d.deviceID,
            d.username,
            d.token,
            Date.now(),
          ]),
        )
      }
      return sql
    },
    /**
     * `n` devices of the product seeded (client ids `<prefix>-<i>`, with credentials for a load generator), all in
     * its new group `all`.
     */
    groupOfDevices: async (
      product: { id: number; productID: string },
      n: number,
      prefix: string,
    ) => {
      const group = await call<ApiRecord>(
        'POST',
        '/api/v1/groups',
        { productID: product.productID, groupName: 'all' },
        token,
      )
      const devices = Array.from({ length: n }, (_, i) => ({
        clientId: `${prefix}-${i}`,
        username: randomId(36),
        password: randomId(36),
      }))
      const sql = await bench.seedDevices(
        product.id,
        devices.map((d) => ({ deviceID: d.clientId, username: d.username, token: d.password })),
      )
      await sql.run(
        `INSERT INTO group_devices (group_int_id, device_int_id, create_at)
         SELECT ?, id, ? FROM devices WHERE tenant_id = ? AND product_int_id = ?`,
        [group.id, Date.now(), tenantID, product.id],
      )
      void sql.close()
      return { group, devices }
    },
    /**
     * A product of `points` data points (named `prefix`) and `n` devices of it (ids `<prefix>-<i>`), seeded, each
     * with what a load generator needs: client id, username, password and its report topic.
     */
    sendingDevices: async (n: number, points: number, prefix = 'bench') => {
      const product = await bench.telemetryProduct(points, prefix)
      const devices = Array.from({ length: n }, (_, i) => ({
        deviceID: `${prefix}-${i}`,
        username: randomId(36),
        token: randomId(36),
      }))
      void (await bench.seedDevices(product.id, devices)).close()
      const creds = devices.map((d) => ({
        clientId: d.deviceID,
        username: d.username,
        password: d.token,
        topic: `${mountpoint({ cloudProtocol: 1, tenantID, productID: product.productID, deviceID: d.deviceID })}telemetry`,
      }))
      return { product, devices, creds }
    },
    close: async () => {
      await svc.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return bench
}
