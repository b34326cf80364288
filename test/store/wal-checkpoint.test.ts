import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createClient } from '@libsql/client'
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestService, Client } from '../_support/service.ts'
import { basic, buildWorld } from '../src/routes/_ingest.ts'

const wal = suite('WAL checkpoint on shutdown')

/** Size of `<file>-wal`, or -1 when there is none. */
const walSize = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : -1)

wal(
  'a clean stop :: devicecloud.db and telemetry.db alone hold every table and row; their -wal files are empty or gone',
  async () => {
    const t = await startTestService({ INGEST_LINGER_MS: '2' })
    const w = await buildWorld(t.admin, t)
    const dev = new Client(t.url, basic(w.device))
    const r = await dev.call(
      'POST',
      '/api/v1/ingest',
      JSON.stringify({ topic: 'telemetry', payload: { temp: 21.5, hum: 40 } }),
      { 'content-type': 'application/json' },
    )
    assert.is(r.status, 202, r.text)
    void t.db.close()
    await t.svc.close()
    const copy = mkdtempSync(join(tmpdir(), 'devicecloud-copy-'))
    try {
      for (const f of ['devicecloud.db', 'telemetry.db']) {
        assert.ok(walSize(join(t.dir, f)) <= 0, `${f}-wal holds ${walSize(join(t.dir, f))} bytes`)
        copyFileSync(join(t.dir, f), join(copy, f))
      }
      const meta = createClient({ url: `file:${join(copy, 'devicecloud.db')}`, intMode: 'number' })
      const devices = await meta.execute({
        sql: 'SELECT device_id FROM devices WHERE id = ?',
        args: [w.device.id],
      })
      assert.equal(
        devices.rows.map((x) => x.device_id),
        [w.device.deviceID],
      )
      meta.close()
      const tel = createClient({ url: `file:${join(copy, 'telemetry.db')}`, intMode: 'number' })
      const series = await tel.execute(
        'SELECT device_id, data_point_id FROM series ORDER BY data_point_id',
      )
      assert.equal(
        series.rows.map((x) => [x.device_id, x.data_point_id]),
        [
          [w.device.deviceID, 'hum'],
          [w.device.deviceID, 'temp'],
        ],
      )
      const chunks = await tel.execute('SELECT count(*) AS n FROM chunks')
      assert.ok(Number(chunks.rows[0]!.n) >= 2, 'the values were flushed to chunks')
      tel.close()
    } finally {
      rmSync(copy, { recursive: true, force: true })
      rmSync(t.dir, { recursive: true, force: true })
    }
  },
)

wal.run()
