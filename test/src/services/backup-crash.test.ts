/**
 * A backup is complete or it is not there (store/backups.ts): the service killed with SIGKILL at several moments
 * of `POST /admin/backup`, and `npm run backup` killed likewise, leave no half backup under a final name, the
 * interrupted task ends failed at the next start, its `.partial` directory goes, and the next backup works.
 * A service starting beside a live backup writer leaves its `.partial` alone. `npm run restore` checks a backup
 * before it puts it in place and refuses while the service runs.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { waitTask } from '../../_support/service.ts'
import { childAdmin, exited, killChild, startChildService } from '../../_support/child-service.ts'
import { checkDatabase } from '../../../store/libsql/files.ts'
import { partialOf } from '../../../store/backups.ts'
import { mqttBody, newDevice, newProduct } from '../routes/devices-helpers.ts'
import { sleep } from '../../ingest/_mqtt.ts'
import { uploadFirmware } from '../../ingest/_ota.ts'

const test = suite('backups: kill -9, restore')

const basicOf = (d: { deviceUsername: string; token: string }) =>
  `Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString('base64')}`
const root = join(import.meta.dirname, '..', '..', '..')

const startChild = (dir: string) =>
  startChildService('test/ingest/_service-child.ts', { DATA_DIR: dir })

/** A data directory whose metadata database carries `mb` MiB of ballast, so that a copy takes a while. */
async function ballastDir(mb: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dc-backup-crash-'))
  const db = createClient({ url: `file:${join(dir, 'devicecloud.db')}` })
  await db.execute('CREATE TABLE ballast (b BLOB)')
  for (let i = 0; i < mb; i++) await db.execute('INSERT INTO ballast VALUES (randomblob(1048576))')
  db.close()
  return dir
}

/** Asserts `dir` is a whole backup: its manifest lists each store, each file there with its size and readable. */
function assertComplete(dir: string, names = ['devicecloud.db', 'telemetry.db']) {
  const manifest = JSON.parse(readFileSync(join(dir, 'backup.json'), 'utf8')) as {
    files: Array<{ name: string; bytes: number }>
  }
  const stores = manifest.files.filter((f) => !f.name.startsWith('firmware/'))
  assert.equal(stores.map((f) => f.name).sort(), names, dir)
  for (const f of stores) assert.is(checkDatabase(join(dir, f.name)), 'ok', `${dir}/${f.name}`)
  assert.not.ok(existsSync(join(dir, 'owner')), `${dir}: no owner file left in a complete backup`)
}

/** The `path` of a finished backup task's result. */
const resultPath = (task: { result: unknown }): string =>
  (typeof task.result === 'string' ? JSON.parse(task.result) : task.result).path

const npmScript = (script: string, args: string[], env: Record<string, string>) =>
  spawn(process.execPath, ['--import', 'tsx', join(root, script), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })

/**
 * Runs a CLI to its end (asynchronously: a test blocked in spawnSync misses its HTTP client's keep-alive sockets
 * closing, and its next request fails on one of them).
 */
async function runCli(script: string, args: string[], env: Record<string, string>) {
  const p = npmScript(script, args, env)
  let out = ''
  p.stdout.on('data', (d) => (out += d))
  p.stderr.on('data', (d) => (out += d))
  const code = await new Promise<number | null>((ok) => p.once('close', (c) => ok(c)))
  return { code, out }
}

test('kill -9 during POST /admin/backup, three moments :: no half backup, the task failed, the next backup runs', async () => {
  const dir = await ballastDir(32)
  const backups = join(dir, 'backups')
  const killed: Array<{ statusUrl: string; partialSeen: boolean }> = []
  try {
    for (const delay of [30, 150, 400]) {
      const c = await startChild(dir)
      const admin = await childAdmin(c.url)
      const r = await admin.post('/api/v1/admin/backup')
      assert.is(r.status, 202, r.text)
      await sleep(delay)
      const partialSeen =
        existsSync(backups) && readdirSync(backups).some((n) => n.endsWith('.partial'))
      await killChild(c)
      killed.push({ statusUrl: r.body.statusUrl, partialSeen })
    }
    assert.ok(
      killed.some((k) => k.partialSeen),
      'at least one kill came while a backup was being written',
    )
    const c = await startChild(dir)
    try {
      const admin = await childAdmin(c.url)
      const names = readdirSync(backups)
      assert.equal(
        names.filter((n) => n.startsWith('.')),
        [],
        'every interrupted .partial directory was removed at start-up',
      )
      for (const n of names) assertComplete(join(backups, n))
      let failed = 0
      for (const k of killed) {
        const task = (await admin.get(`/api/v1${k.statusUrl}`)).body
        assert.ok(task.status === 3 || task.status === 4, JSON.stringify(task))
        if (task.status === 4) failed++
        else assertComplete(resultPath(task))
      }
      assert.ok(failed >= 1, 'an interrupted backup task ends failed')
      // the next backup is not refused as "running", and completes
      const next = await admin.post('/api/v1/admin/backup')
      assert.is(next.status, 202, next.text)
      const task = await waitTask(admin, next.body.statusUrl)
      assert.is(task.status, 3, JSON.stringify(task))
      assertComplete(resultPath(task))
    } finally {
      await killChild(c)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("a service starting while another process writes a backup into its DATA_DIR :: that .partial stays, the backup completes; a dead writer's goes", async () => {
  const dir = await ballastDir(32)
  const backups = join(dir, 'backups')
  const live = join(backups, 'by-cli')
  const dead = join(backups, 'by-killed-cli')
  let c: Awaited<ReturnType<typeof startChild>> | undefined
  try {
    const writers = [live, dead].map((target) =>
      npmScript('src/cli/backup.ts', [target], { DATA_DIR: dir }),
    )
    // both writers paused (SIGSTOP) in the middle of their copy, then one of them killed
    for (const [i, target] of [live, dead].entries()) {
      for (let k = 0; k < 600 && !existsSync(join(partialOf(target), 'owner')); k++) await sleep(10)
      assert.ok(existsSync(partialOf(target)), `${target}: the writer began`)
      writers[i]!.kill('SIGSTOP')
    }
    writers[1]!.kill('SIGKILL')
    await exited(writers[1]!)
    c = await startChild(dir) // its start-up cleans the backups folder
    assert.ok(existsSync(partialOf(live)), "a live writer's .partial stays")
    assert.not.ok(existsSync(partialOf(dead)), "a dead writer's .partial is removed")
    writers[0]!.kill('SIGCONT')
    const code = await new Promise((ok) => writers[0]!.once('close', ok))
    assert.is(code, 0)
    assertComplete(live)
  } finally {
    if (c) await killChild(c)
    rmSync(dir, { recursive: true, force: true })
  }
})

test('kill -9 during npm run backup, three moments :: the target is absent or whole; the same target works next', async () => {
  const dir = await ballastDir(32)
  const out = mkdtempSync(join(tmpdir(), 'dc-backup-cli-'))
  try {
    let cut = 0
    for (const [i, delay] of [150, 700, 1500].entries()) {
      const target = join(out, `b${i}`)
      const p = npmScript('src/cli/backup.ts', [target], { DATA_DIR: dir })
      await sleep(delay)
      p.kill('SIGKILL')
      await exited(p)
      if (existsSync(target)) assertComplete(target)
      else cut++
    }
    assert.ok(cut >= 1, 'at least one CLI backup was cut short')
    // a cut-short target is written again, its stale .partial taken over
    for (const n of readdirSync(out).filter((n) => !n.startsWith('.')))
      rmSync(join(out, n), { recursive: true })
    const again = await runCli('src/cli/backup.ts', [join(out, 'b0')], { DATA_DIR: dir })
    assert.is(again.code, 0, again.out)
    assertComplete(join(out, 'b0'))
    assert.not.ok(existsSync(join(out, '.b0.partial')))
  } finally {
    rmSync(dir, { recursive: true, force: true })
    rmSync(out, { recursive: true, force: true })
  }
})

test('npm run restore :: refuses while running, a partial, a wrong size, a damaged file; restores with the old files kept; firmware packages go with their rows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dc-restore-'))
  const out = mkdtempSync(join(tmpdir(), 'dc-restore-bk-'))
  let c = await startChild(dir)
  try {
    let admin = await childAdmin(c.url)
    const product = await newProduct(admin)
    const kept = await newDevice(admin, mqttBody(product.productID))
    const bytes1 = randomBytes(300_000)
    const pkg = await uploadFirmware(c, admin.authorization!, product.productID, '1.0', bytes1)
    const bk = join(out, 'bk')
    const backup = await runCli('src/cli/backup.ts', [bk], { DATA_DIR: dir })
    assert.is(backup.code, 0, backup.out)
    assertComplete(bk)
    const listed = JSON.parse(readFileSync(join(bk, 'backup.json'), 'utf8')).files as Array<{
      name: string
      bytes: number
    }>
    const pkgEntries = listed.filter((f) => f.name.startsWith('firmware/'))
    assert.equal(
      pkgEntries.map((f) => f.bytes),
      [300_000],
      'the package is in the backup',
    )
    const later = await newDevice(admin, mqttBody(product.productID))
    // after the backup: the package is deleted (its file goes) and another one uploaded
    assert.is((await admin.del(`/api/v1/firmware?ids=${pkg.id}`)).status, 204)
    const pkgLater = await uploadFirmware(
      c,
      admin.authorization!,
      product.productID,
      '2.0',
      randomBytes(1000),
    )

    const running = await runCli('src/cli/restore.ts', [bk], { DATA_DIR: dir })
    assert.is(running.code, 1, running.out)
    assert.match(running.out, /stop the service/)
    assert.is((await admin.get(`/api/v1/devices/${later.id}`)).status, 200, 'nothing changed')
    await killChild(c)

    const partial = join(out, '.bk2.partial')
    cpSync(bk, partial, { recursive: true })
    const p = await runCli('src/cli/restore.ts', [partial], { DATA_DIR: dir })
    assert.is(p.code, 1, p.out)
    assert.match(p.out, /interrupted backup/)

    const wrongSize = join(out, 'wrong-size')
    cpSync(bk, wrongSize, { recursive: true })
    const m = JSON.parse(readFileSync(join(wrongSize, 'backup.json'), 'utf8'))
    m.files[0].bytes += 1
    writeFileSync(join(wrongSize, 'backup.json'), JSON.stringify(m))
    const w = await runCli('src/cli/restore.ts', [wrongSize], { DATA_DIR: dir })
    assert.is(w.code, 1, w.out)
    assert.match(w.out, /bytes/)

    const damaged = join(out, 'damaged')
    cpSync(bk, damaged, { recursive: true })
    const file = join(damaged, 'devicecloud.db')
    const bytes = readFileSync(file)
    bytes.fill(0x5a, 0, 100) // the header: no longer a database
    writeFileSync(file, bytes)
    const d = await runCli('src/cli/restore.ts', [damaged], { DATA_DIR: dir })
    assert.is(d.code, 1, d.out)
    assert.match(d.out, /damaged/)

    const ok = await runCli('src/cli/restore.ts', [bk], { DATA_DIR: dir })
    assert.is(ok.code, 0, ok.out)
    assert.match(ok.out, /restored devicecloud\.db/)
    assert.match(ok.out, /restored telemetry\.db/)
    const previous = readdirSync(dir).find((n) => n.startsWith('pre-restore-'))
    assert.ok(previous, ok.out)
    assert.ok(existsSync(join(dir, previous, 'devicecloud.db')), 'the replaced file is kept')

    c = await startChild(dir)
    admin = await childAdmin(c.url)
    assert.is(
      (await admin.get(`/api/v1/devices/${kept.id}`)).status,
      200,
      'the backup holds the first device',
    )
    assert.is(
      (await admin.get(`/api/v1/devices/${later.id}`)).status,
      404,
      'the later device is gone',
    )
    assert.is((await admin.get(`/api/v1/firmware/${pkgLater.id}`)).status, 404)
    assert.ok(existsSync(join(dir, previous, 'firmware')), 'the replaced packages are kept aside')
    const download = await fetch(`${c.url}/api/v1/ingest/firmware/${pkg.firmwareID}`, {
      headers: { authorization: basicOf(kept) },
    })
    assert.is(download.status, 200, 'the deleted package is back with its row')
    const got = Buffer.from(await download.arrayBuffer())
    assert.ok(got.equals(bytes1), 'the same bytes')
  } finally {
    await killChild(c)
    rmSync(dir, { recursive: true, force: true })
    rmSync(out, { recursive: true, force: true })
  }
})

test.run()
