/**
 * The firmware pages in real Chromium against the real service, with MQTT.js devices that take updates
 * (test/ingest/_ota.ts): a package uploaded through the form with its progress bar moving (upload throttled) and
 * listed with its checksum (copied whole), a taken version and a wrong SHA-256 refused beside their fields; a
 * rollout to a group chosen by name, the API's refusals beside the form's fields; the rollout page's progress bar,
 * counts and rows following two devices' updates live; Pause, Resume and Cancel (asked first) changing the status,
 * labels in Chinese; the device page's firmware history and softVersion (set live); the product page's versions with
 * their counts leading to the devices running them; a second tenant who sees none of it; axe-core on each page.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Dialog, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { end, until } from '../ingest/_mqtt.ts'
import { otaDevice, uploadFirmware, type OtaDevice } from '../ingest/_ota.ts'
import type { TestService } from '../_support/service.ts'
import type { Page as ListPage, Wire } from '../_support/wire.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Rollout } from '../../src/schemas/rollouts.ts'
import type { Firmware } from '../../src/schemas/firmware.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  matchesSoon,
  rowSoon,
  rowWith,
  runWithChromium,
  signIn,
  textOf,
  type InPage,
  type PageElement,
} from './_browser.ts'
import { goTo, shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

type RolloutRecord = Wire<typeof Rollout>

let t: TestService
let browser: Browser
let page: Page
let product: { id: number; productID: string; productName: string }
let lamp: NewDevice
let fan: NewDevice
const clients: OtaDevice[] = []
const tag = Date.now().toString(36)
const lobby = `lobby-${tag}`
const empty = `empty-${tag}`
/** The package uploaded through the form, its bytes and checksum. */
const bytes = randomBytes(6 * 1024 * 1024)
const sha = createHash('sha256').update(bytes).digest('hex')
/** The rollout made through the form. */
let rolloutID = 0
/** The second tenant's sign-in. */
const other = { email: `other-${tag}@test.local`, password: 'other-password-1' }

const ui = suite('firmware pages in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1300, 1000))
  await browser
    .defaultBrowserContext()
    .overridePermissions(t.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write'])
  product = await newProduct(t.admin)
  lamp = await newDevice(
    t.admin,
    mqttBody(product.productID, { deviceName: `lamp-${tag}`, softVersion: '1.0.0' }),
  )
  fan = await newDevice(
    t.admin,
    mqttBody(product.productID, { deviceName: `fan-${tag}`, softVersion: '1.0.0' }),
  )
  for (const [name, ids] of [
    [lobby, [lamp.id, fan.id]],
    [empty, []],
  ] as const) {
    const g = await t.admin.post('/api/v1/groups', {
      productID: product.productID,
      groupName: name,
    })
    assert.is(g.status, 201, g.text)
    if (ids.length) {
      const m = await t.admin.post(`/api/v1/groups/${g.body.id}/devices`, { ids })
      assert.ok(m.status < 300, m.text)
    }
  }
  // the second tenant, with a product and a package of its own
  const s = await t.anon.post('/api/v1/signup', {
    email: other.email,
    username: `other-${tag}`,
    password: other.password,
    tenantName: `Other ${tag}`,
  })
  assert.is(s.status, 201, s.text)
  const otherAuth = `Bearer ${s.body.token}`
  const p = await t.anon.post(
    '/api/v1/products',
    { productName: `theirs-${tag}`, cloudProtocol: 1 },
    { authorization: otherAuth },
  )
  assert.is(p.status, 201, p.text)
  await uploadFirmware(t, otherAuth, p.body.productID, '9.9.9', randomBytes(1000))
})

ui.after(async () => {
  for (const d of clients) end(d.client)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'firmware', () => page)

/** In-app navigation (the page keeps one event stream). */
const go = (path: string) => goTo(page, path)
const rollout = async (id: number) =>
  (await t.admin.get<RolloutRecord>(`/api/v1/firmware_rollouts/${id}`)).body
const valueOf = (el: ElementHandle) => el.evaluate((e) => (e as unknown as { value: string }).value)
const attr = (el: ElementHandle, name: string) =>
  el.evaluate((e, n) => (e as unknown as PageElement).getAttribute(n), name)

/** The options of a select: [text, value]. */
const optionsOf = (select: ElementHandle) =>
  select.evaluate((s) =>
    [...(s as unknown as { options: Iterable<{ text: string; value: string }> }).options].map(
      (o) => [o.text, o.value] as [string, string],
    ),
  )

/**
 * Chooses the option of a select whose text includes `text`, once it is there (products and groups are chosen by
 * name, never by id).
 */
async function choose(select: ElementHandle, text: string) {
  const options = await until(
    () => optionsOf(select),
    (os) => os.some(([label]) => label.includes(text)),
  )
  const value = options.find(([label]) => label.includes(text))?.[1]
  assert.ok(
    value !== undefined,
    `an option with "${text}" in ${options.map((o) => o[0]).join(', ')}`,
  )
  await select.select(value)
}

/** Replaces the text of the input. */
async function retype(input: ElementHandle, text: string) {
  await input.click({ count: 3 })
  await page.keyboard.press('Backspace')
  if (text) await input.type(text)
}

/** The error shown beside the input (what its aria-describedby names), '' when none. */
const errorBeside = (input: ElementHandle) =>
  input.evaluate((e) => {
    const id = (e as unknown as PageElement).getAttribute('aria-describedby')
    if (!id) return ''
    const doc = (globalThis as InPage).document as unknown as {
      getElementById(id: string): PageElement | null
    }
    return doc.getElementById(id)?.innerText ?? ''
  })

/** The number a figure of the region shows for `label` (NaN when none). */
const figure = async (region: ElementHandle, label: string) =>
  Number(new RegExp(`(?:^|\\n)${label}\\n(\\d+)`).exec(await textOf(region))?.[1])

/** The rollout page's progress bar value, its counts region and its status. */
const bar = () => byRole(page, 'progressbar', 'Rollout progress')
const barValue = async () => (await attr(await bar(), 'aria-valuenow')) ?? ''
const counts = () => byRole(page, 'group', 'Devices by state')
const statusText = async () => textOf(await byRole(page, 'status', 'Rollout status'))

/** Records every aria-valuenow the upload's progress bar takes, from now on. */
const watchUploadBar = () =>
  page.evaluate(() => {
    const w = globalThis as unknown as {
      uploadSeen: string[]
      document: { body: unknown }
      MutationObserver: new (cb: (records: Array<{ target: PageElement }>) => void) => {
        observe(node: unknown, opts: object): void
      }
    }
    w.uploadSeen = []
    new w.MutationObserver((records) => {
      for (const r of records) {
        if (r.target.getAttribute('aria-label') !== 'Upload progress') continue
        w.uploadSeen.push(r.target.getAttribute('aria-valuenow') ?? '')
      }
    }).observe(w.document.body, {
      subtree: true,
      attributes: true,
      attributeFilter: ['aria-valuenow'],
    })
  })
const uploadSeen = () =>
  page.evaluate(() => (globalThis as unknown as { uploadSeen: string[] }).uploadSeen.map(Number))

test('upload :: product by name, the progress bar moves to 100, the package listed with its checksum; Copy copies it whole', async () => {
  await signInAdmin(page, `${t.url}/firmware`)
  const form = await byRole(page, 'form', 'Upload a package')
  await choose(await byRole(form, 'combobox', 'Product'), product.productName)
  await (await byRole(form, 'textbox', 'Version')).type('2.0.0')
  await (await byRole(form, 'textbox', 'Description')).type('fixes the drift')
  await (await byRole(form, 'textbox', 'SHA-256 (optional)')).type(sha.toUpperCase())
  const file = join(mkdtempSync(join(tmpdir(), 'fw-')), 'fw.bin')
  writeFileSync(file, bytes)
  await (await form.$('input[type=file]'))!.uploadFile(file)
  assert.equal(await axeViolations(page), [])

  // 6 MiB at 3 MiB/s: the bar is seen between 0 and 100 on its way
  await page.emulateNetworkConditions({ upload: 3 * 1024 * 1024, download: -1, latency: 0 })
  await watchUploadBar()
  const posted = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/firmware') && r.request().method() === 'POST',
    { timeout: 30_000 },
  )
  await (await byRole(form, 'button', 'Upload')).click()
  assert.is((await posted).status(), 201)
  await page.emulateNetworkConditions(null)
  const region = await byRole(page, 'region', 'Upload a package')
  await matchesSoon(async () => textOf(await byRole(region, 'status')), /Uploaded 2\.0\.0\./)
  const seen = await uploadSeen()
  assert.ok(
    seen.some((v) => v > 0 && v < 100),
    `between 0 and 100: ${seen.join()}`,
  )
  assert.is(seen.at(-1), 100, seen.join())
  assert.equal(
    seen,
    [...seen].sort((a, b) => a - b),
    'never backwards',
  )
  assert.is(
    await attr(await byRole(page, 'progressbar', 'Upload progress'), 'aria-valuenow'),
    '100',
  )

  const row = await rowSoon(page, 'Packages', '2.0.0')
  assert.ok(row, 'listed')
  const text = await textOf(row)
  assert.match(
    text,
    new RegExp(`${product.productName}\\s+2\\.0\\.0\\s+6\\.0 MiB\\s+${sha.slice(0, 12)}…`),
  )
  assert.match(text, /fixes the drift/)
  assert.not.match(text, new RegExp(sha), 'shortened')
  await (await byRole(row, 'button', 'Copy the SHA-256 of 2.0.0')).click()
  await byRole(row, 'status')
  await matchesSoon(async () => textOf(await byRole(row, 'status')), /^Copied$/)
  assert.is(await page.evaluate(() => (globalThis as InPage).navigator.clipboard.readText()), sha)
  const stored = (
    await t.admin.get<ListPage<Wire<typeof Firmware>>>(
      `/api/v1/firmware?productID=${product.productID}`,
    )
  ).body.items
  assert.equal(
    stored.map((f) => [f.version, f.sha256, f.size, f.description]),
    [['2.0.0', sha, bytes.length, 'fixes the drift']],
  )
})

test('upload refused :: a taken version and a SHA-256 that does not match, each beside its field, nothing stored', async () => {
  const form = await byRole(page, 'form', 'Upload a package')
  const version = await byRole(form, 'textbox', 'Version')
  const file = join(mkdtempSync(join(tmpdir(), 'fw-')), 'small.bin')
  writeFileSync(file, randomBytes(1000))
  await (await form.$('input[type=file]'))!.uploadFile(file)
  await version.type('2.0.0')
  await (await byRole(form, 'button', 'Upload')).click()
  await matchesSoon(async () => textOf(await byRole(page, 'alert')), /already taken/)
  assert.is(await attr(version, 'aria-invalid'), 'true')
  assert.match(await errorBeside(version), /has a package of this version already/)

  await retype(version, '2.0.1')
  await (await byRole(form, 'textbox', 'SHA-256 (optional)')).type('a'.repeat(64))
  await (await byRole(form, 'button', 'Upload')).click()
  const shaInput = await byRole(form, 'textbox', 'SHA-256 (optional)')
  await matchesSoon(() => errorBeside(shaInput), /does not match the file's SHA-256/)
  assert.is(await attr(version, 'aria-invalid'), null, 'the version is no longer at fault')
  assert.is(await valueOf(version), '2.0.1', 'the typed text is kept')
  assert.equal(await axeViolations(page), [])
  const versions = (
    await t.admin.get<ListPage<Wire<typeof Firmware>>>(
      `/api/v1/firmware?productID=${product.productID}`,
    )
  ).body.items.map((f) => f.version)
  assert.equal(versions, ['2.0.0'])
})

test('rollout form :: defaults; refusals beside the fields; a group chosen by name; the rollout page opens', async () => {
  await (await byRole(page, 'button', `Roll out ${product.productName} 2.0.0`)).click()
  const dialog = await byRole(page, 'dialog', `Roll out 2.0.0 of ${product.productName}`)
  const field = (name: string) => byRole(dialog, 'spinbutton', name)
  assert.is(await valueOf(await field('Devices a minute')), '100')
  assert.is(await valueOf(await field('Device timeout (min)')), '60')
  assert.is(await valueOf(await field('Retries')), '0')
  const target = await byRole(dialog, 'combobox', 'Target')
  const options = await until(
    async () => (await optionsOf(target)).map((o) => o[0]),
    (os) => os.length === 4,
  )
  assert.equal(options, [
    'Choose a group or the whole product',
    `Group ${empty} (0 devices)`,
    `Group ${lobby} (2 devices)`,
    'Whole product (2 devices)',
  ])
  assert.equal(await axeViolations(page), [])

  // a group without devices, and a ramp-up factor out of range: each refusal beside its field
  await choose(target, `Group ${empty}`)
  await (await byRole(dialog, 'checkbox', 'Ramp up: start slower')).click()
  const factor = await field('Multiply the rate by')
  await retype(factor, '9')
  await (await byRole(dialog, 'button', 'Start rollout')).click()
  await matchesSoon(() => errorBeside(factor), /must be a number from 1\.1 to 5/)
  await retype(factor, '2')
  await (await byRole(dialog, 'button', 'Start rollout')).click()
  await matchesSoon(() => errorBeside(target), /the target has no device/)
  assert.is(await errorBeside(factor), '')
  assert.equal(
    (await t.admin.get<ListPage<RolloutRecord>>('/api/v1/firmware_rollouts')).body.items,
    [],
  )

  // Lobby, only devices at 1.0.0, 600 a minute from 300 doubling every device
  await choose(target, `Group ${lobby}`)
  await (await byRole(dialog, 'checkbox', '1.0.0 (2)')).click()
  await retype(await field('Devices a minute'), '600')
  await retype(await field('Start, devices a minute'), '300')
  await retype(await field('Every N devices updated'), '1')
  await (await byRole(dialog, 'button', 'Start rollout')).click()
  await until(
    async () => page.url(),
    (u) => /\/firmware\/rollouts\/\d+$/.test(u),
  )
  rolloutID = Number(/(\d+)$/.exec(page.url())![1])
  await byRole(page, 'heading', `Rollout 2.0.0 → ${lobby}`)
  const r = await rollout(rolloutID)
  assert.equal(
    [r.target, r.groupName, r.fromVersions, r.ratePerMinute, r.rampUp, r.timeoutMinutes, r.retries],
    ['group', lobby, ['1.0.0'], 600, { startPerMinute: 300, factor: 2, every: 1 }, 60, 0],
  )
  assert.is(r.total, 2)
})

test('live :: the progress bar, the counts and the rows follow two devices updating, without a reload', async () => {
  // both devices are offline: notified when they connect
  await until(
    async () => (await rollout(rolloutID)).counts.notified,
    (n) => n === 2,
  )
  await matchesSoon(async () => String(await figure(await counts(), 'Notified')), /^2$/)
  assert.is(await barValue(), '0')
  assert.match(await textOf(await byRole(page, 'region', 'Progress')), /0 of 2 finished \(0%\)/)
  assert.equal(await axeViolations(page), [])
  await page.evaluate(() => void ((globalThis as { fwMark?: number }).fwMark = 1))

  clients.push(await otaDevice(t, lamp, 'http'))
  await matchesSoon(barValue, /^50$/, 10_000)
  assert.is(await figure(await counts(), 'Updated'), 1)
  assert.is(await figure(await counts(), 'Notified'), 1)
  assert.match(await textOf(await byRole(page, 'region', 'Progress')), /1 of 2 finished \(50%\)/)
  await matchesSoon(
    async () => textOf((await rowWith(page, 'Devices of the rollout', lamp.deviceName))!),
    /Updated\s+1\s+100%/,
  )
  assert.match(await statusText(), /^Running$/)

  clients.push(await otaDevice(t, fan, 'mqtt'))
  await matchesSoon(barValue, /^100$/, 15_000)
  await matchesSoon(statusText, /^Succeeded$/, 10_000)
  assert.is(await figure(await counts(), 'Updated'), 2)
  assert.is(await figure(await counts(), 'Notified'), 0)
  assert.equal(await allByRole(page, 'button', 'Pause'), [])
  assert.equal(await allByRole(page, 'button', 'Cancel rollout'), [])
  const link = await byRole(page, 'link', fan.deviceName)
  assert.is(await attr(link, 'href'), `/devices/${fan.id}`)
  assert.is(await page.evaluate(() => (globalThis as { fwMark?: number }).fwMark), 1, 'no reload')
  const r = await rollout(rolloutID)
  assert.equal([r.status, r.counts.updated], ['succeeded', 2])
})

test('pause, resume, cancel :: each button changes the status; Cancel asks first; labels in Chinese too', async () => {
  for (const d of clients.splice(0)) end(d.client)
  const fw = await uploadFirmware(
    t,
    t.admin.authorization!,
    product.productID,
    '3.0.0',
    randomBytes(2000),
  )
  const made = await t.admin.post<RolloutRecord>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    productWide: true,
  })
  assert.is(made.status, 201, made.text)
  const id = made.body.id
  await go(`/firmware/rollouts/${id}`)
  await byRole(page, 'heading', 'Rollout 3.0.0 → Whole product')
  await matchesSoon(statusText, /^Running$/)
  assert.equal(await allByRole(page, 'button', 'Resume'), [])

  await (await byRole(page, 'button', 'Pause')).click()
  await matchesSoon(statusText, /^Paused$/)
  assert.is((await rollout(id)).status, 'paused')
  assert.equal(await allByRole(page, 'button', 'Pause'), [])
  await (await byRole(page, 'button', 'Resume')).click()
  await matchesSoon(statusText, /^Running$/)
  assert.is((await rollout(id)).status, 'running')

  const answers = [false, true]
  const asked: string[] = []
  const onDialog = (d: Dialog) => {
    asked.push(d.message())
    void (answers.shift() ? d.accept() : d.dismiss())
  }
  page.on('dialog', onDialog)
  try {
    await (await byRole(page, 'button', 'Cancel rollout')).click()
    await until(
      async () => asked.length,
      (n) => n === 1,
    )
    assert.match(asked[0]!, /^Cancel rollout 3\.0\.0 → Whole product\?/)
    assert.is((await rollout(id)).status, 'running', 'dismissed: still running')
    assert.match(await statusText(), /^Running$/)
    await (await byRole(page, 'button', 'Cancel rollout')).click()
    await matchesSoon(statusText, /^Canceled$/)
  } finally {
    page.off('dialog', onDialog)
  }
  const r = await rollout(id)
  assert.is(r.status, 'canceled')
  assert.equal(await allByRole(page, 'button', 'Resume'), [])
  assert.equal(await allByRole(page, 'button', 'Cancel rollout'), [])
  await matchesSoon(async () => String(await figure(await counts(), 'Canceled')), /^2$/)
  assert.is(r.counts.canceled, 2)

  // the Language control: the labels the console keeps (statuses, counts) in Chinese
  await (await byRole(page, 'combobox', 'Language')).select('zh')
  await matchesSoon(async () => textOf(await byRole(page, 'status', '升级任务状态')), /^已取消$/)
  await byRole(page, 'group', '各状态设备数')
  await matchesSoon(async () => textOf(await byRole(page, 'group', '各状态设备数')), /已取消\n2/)
  await (await byRole(page, 'combobox', '语言')).select('en')
  await byRole(page, 'status', 'Rollout status')
})

test('device page :: the firmware history and the softVersion, set live when an update succeeds', async () => {
  await go(`/devices/${lamp.id}`)
  const history = await byRole(page, 'table', 'Firmware history')
  assert.ok(history)
  const row2 = await rowSoon(page, 'Firmware history', '2.0.0')
  assert.match(await textOf(row2!), /^2\.0\.0\s+Succeeded\s+Updated\s+1\s+100%\s+\d{4}-/)
  const row3 = await rowWith(page, 'Firmware history', '3.0.0')
  assert.match(await textOf(row3!), /^3\.0\.0\s+Canceled\s+Canceled\s+1\s+/)
  const link = await byRole(page, 'link', 'Rollout of 2.0.0')
  assert.is(await attr(link, 'href'), `/firmware/rollouts/${rolloutID}`)
  const info = await byRole(page, 'region', 'Info')
  assert.match(await textOf(info), /Software version\s+2\.0\.0/)
  assert.equal(await axeViolations(page), [])

  // 4.0.0 to the lamp while its page is open: its version and history follow
  const fw = await uploadFirmware(
    t,
    t.admin.authorization!,
    product.productID,
    '4.0.0',
    randomBytes(3000),
  )
  const made = await t.admin.post('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    deviceIDs: [lamp.deviceID],
  })
  assert.is(made.status, 201, made.text)
  await page.evaluate(() => void ((globalThis as { fwMark?: number }).fwMark = 2))
  clients.push(await otaDevice(t, lamp, 'http'))
  await matchesSoon(async () => textOf(info), /Software version\s+4\.0\.0/, 10_000)
  const row4 = await rowSoon(page, 'Firmware history', '4.0.0', 10_000)
  await matchesSoon(async () => textOf(row4!), /^4\.0\.0\s+\S+\s+Updated\s+1\s+/)
  assert.is(await page.evaluate(() => (globalThis as { fwMark?: number }).fwMark), 2, 'no reload')
  assert.is((await t.admin.get(`/api/v1/devices/${lamp.id}`)).body.softVersion, '4.0.0')
})

test('product page :: the versions its devices run with their counts, each leading to those devices', async () => {
  await go(`/products/${product.id}`)
  const table = await byRole(page, 'table', 'Firmware versions')
  const rows = async () =>
    (await allByRole(table, 'row')).length > 1
      ? Promise.all((await allByRole(table, 'row')).slice(1).map(textOf))
      : []
  assert.equal((await rows()).map((r) => r.split(/\s+/).join(' ')).sort(), ['2.0.0 1', '4.0.0 1'])
  assert.equal(await axeViolations(page), [])
  await (await byRole(page, 'link', 'Devices running 2.0.0: 1')).click()
  await byRole(page, 'link', fan.deviceName)
  await until(
    async () => (await allByRole(page, 'link', lamp.deviceName)).length,
    (n) => n === 0,
  )
  assert.equal(await allByRole(page, 'link', lamp.deviceName), [])
  const q = new URL(page.url()).searchParams
  assert.equal([q.get('productID'), q.get('softVersion')], [product.productID, '2.0.0'])
  assert.match(await textOf(await byRole(page, 'main')), /Running firmware 2\.0\.0/)
  await (await byRole(page, 'button', 'Any version')).click()
  await byRole(page, 'link', lamp.deviceName)
  assert.is(new URL(page.url()).searchParams.get('softVersion'), null)
})

test('a viewer :: the packages, rollouts and a running rollout, without Upload, Roll out, Delete, Pause or Cancel', async () => {
  const fw = (
    await t.admin.get<ListPage<Wire<typeof Firmware>>>(
      `/api/v1/firmware?productID=${product.productID}&version=3.0.0`,
    )
  ).body.items[0]!
  const made = await t.admin.post<RolloutRecord>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    deviceIDs: [fan.deviceID],
  })
  assert.is(made.status, 201, made.text)
  await signInViewer(page, t, `${t.url}/firmware`)
  await rowSoon(page, 'Packages', '3.0.0')
  await rowSoon(page, 'Rollouts', '3.0.0 → 1 device')
  assert.equal(await allByRole(page, 'form', 'Upload a package'), [])
  assert.equal(await allByRole(page, 'button', `Roll out ${product.productName} 2.0.0`), [])
  assert.equal(await allByRole(page, 'button', `Delete ${product.productName} 2.0.0`), [])
  await byRole(page, 'button', 'Copy the SHA-256 of 2.0.0')
  await (await byRole(page, 'link', '3.0.0 → 1 device')).click()
  await matchesSoon(statusText, /^Running$/)
  await byRole(page, 'progressbar', 'Rollout progress')
  for (const name of ['Pause', 'Resume', 'Cancel rollout'])
    assert.equal(await allByRole(page, 'button', name), [], name)
  assert.equal(await axeViolations(page), [])
})

test('tenants :: a second tenant sees its own package, none of the first tenant’s, nor its rollout', async () => {
  await (await byRole(page, 'button', 'Sign out')).click()
  await signIn(page, other.email, other.password)
  await byRole(page, 'button', 'Sign out')
  await go('/firmware')
  await rowSoon(page, 'Packages', '9.9.9')
  const table = await byRole(page, 'table', 'Packages')
  const text = await textOf(table)
  for (const v of ['2.0.0', '3.0.0', '4.0.0']) assert.not.match(text, v)
  assert.not.match(text, product.productName)
  assert.not.match(await textOf(await byRole(page, 'table', 'Rollouts')), /2\.0\.0/)
  await go(`/firmware/rollouts/${rolloutID}`)
  await byRole(page, 'heading', 'Not found.')
})

runWithChromium(ui)
