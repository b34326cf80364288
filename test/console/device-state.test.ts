/**
 * Device state in the console, in real Chromium against the real service with real MQTT devices (MQTT.js): the
 * device page's State region (desired, reported and delta by key, pending keys marked, versions), the desired state
 * edited in its dialog (200; invalid JSON refused before sending; a 409 after the document changed, shown with the
 * current desired state and the typed text kept, then saved over it), the region following the device's reports
 * live, the console's switch showing a pending value, the devices list's marker and `stateDelta` filter, a group's
 * patch followed to its counts, a viewer without write controls, axe-core on each page.
 */
import type { MqttClient } from 'mqtt'
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connectDevice, end, until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mkPoint, mkProduct } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Wire } from '../_support/wire.ts'
import type { StateDocument } from '../../src/schemas/state.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  matchesSoon,
  rowWith,
  runWithChromium,
  textOf,
} from './_browser.ts'
import {
  goTo,
  shotCases,
  signInAdmin,
  signInViewer,
  startConsole,
  stopConsole,
  switchTemplate,
} from './_setup.ts'

type Doc = Wire<typeof StateDocument>

let t: TestService
let browser: Browser
let page: Page
let lamp: NewDevice
let fan: NewDevice
let groupID: number
const clients = new Map<string, MqttClient>()
const tag = Date.now().toString(36)
/** The state PATCHes the page sent: path and body. */
const patches: Array<{ path: string; body: Record<string, unknown> }> = []
const TABLE = 'Desired and reported state'
const TEXTAREA = 'Desired state (JSON merge patch)'

const ui = suite('device state in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1300, 1000))
  const product = await mkProduct(t.admin)
  const power = await mkPoint(t.admin, product.id, 'power')
  await switchTemplate(t.admin, product.productID, power.id, 'Power')
  lamp = await newDevice(t.admin, mqttBody(product.productID, { deviceName: `lamp-${tag}` }))
  fan = await newDevice(t.admin, mqttBody(product.productID, { deviceName: `fan-${tag}` }))
  for (const d of [lamp, fan]) clients.set(d.deviceID, await connectDevice(t, d))
  const g = await t.admin.post('/api/v1/groups', {
    productID: product.productID,
    groupName: `floor-${tag}`,
  })
  assert.is(g.status, 201, g.text)
  groupID = g.body.id
  const m = await t.admin.post(`/api/v1/groups/${groupID}/devices`, { ids: [lamp.id, fan.id] })
  assert.ok(m.status < 300, m.text)
  page.on('request', (r) => {
    const u = new URL(r.url())
    if (r.method() === 'PATCH' && u.pathname.endsWith('/state'))
      patches.push({ path: u.pathname, body: JSON.parse(r.postData() ?? 'null') })
  })
})

ui.after(async () => {
  for (const c of clients.values()) end(c)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'device-state', () => page)

const statePath = (d: NewDevice) => `/api/v1/devices/${d.id}/state`
const docOf = async (d: NewDevice) => (await t.admin.get<Doc>(statePath(d))).body
/** Patches the device's desired state through the API (as another operator would); the document answered. */
async function desire(d: NewDevice, desired: Record<string, unknown>) {
  const r = await t.admin.patch<Doc>(statePath(d), { desired })
  assert.is(r.status, 200, r.text)
  return r.body
}
/** The device reports over MQTT (`state/reported`, QoS 1: stored once acknowledged). */
const report = (d: NewDevice, reported: Record<string, unknown>) =>
  clients.get(d.deviceID)!.publishAsync('state/reported', JSON.stringify(reported), { qos: 1 })

/** In-app navigation (goTo): the page keeps one event stream. */
const go = (path: string) => goTo(page, path)
const region = () => byRole(page, 'region', 'State')
/** The text of the State table's row of `key` ('' while there is none). */
const rowOf = async (key: string) => {
  const row = await rowWith(page, TABLE, key)
  return row ? textOf(row) : ''
}
const valueOf = (el: ElementHandle) => el.evaluate((e) => (e as unknown as { value: string }).value)
/** Replaces the text of the dialog's textarea with `text`. */
async function typePatch(dialog: ElementHandle, text: string) {
  const area = await byRole(dialog, 'textbox', TEXTAREA)
  await area.focus()
  await page.keyboard.down('Control')
  await page.keyboard.press('KeyA')
  await page.keyboard.up('Control')
  await page.keyboard.press('Backspace')
  await area.type(text)
  return area
}
const openEditor = async () => {
  await (await byRole(page, 'button', 'Edit desired state')).click()
  return byRole(page, 'dialog', 'Edit desired state')
}
/** Waits until no dialog is open, and asserts it. */
const noDialog = async () =>
  assert.is(
    (
      await until(
        () => allByRole(page, 'dialog'),
        (d) => d.length === 0,
      )
    ).length,
    0,
  )

test('State region :: desired, reported and delta by key, pending keys marked, versions; axe clean', async () => {
  await desire(lamp, { setpoint: 21, mode: 'eco', schedule: { on: '07:00' } })
  await report(lamp, { mode: 'eco', fw: '1.2' })
  await signInAdmin(page, `${t.url}/devices/${lamp.id}`)
  await byRole(page, 'table', TABLE)
  assert.match(
    await rowOf('setpoint'),
    /^setpoint\s+21\s+—\s+pending\s+21\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+—$/,
  )
  assert.match(await rowOf('schedule'), /\{"on":"07:00"\}\s+—\s+pending\s+\{"on":"07:00"\}/)
  assert.match(
    await rowOf('mode'),
    /^mode\s+"eco"\s+"eco"\s+—\s+\d{4}-[\d:\s-]+\s+\d{4}-[\d:\s-]+$/,
  )
  assert.match(await rowOf('fw'), /^fw\s+—\s+"1\.2"\s+—\s+—\s+\d{4}-/)
  const doc = await docOf(lamp)
  const text = await textOf(await region())
  assert.match(text, /2 keys pending/)
  assert.match(text, new RegExp(`Version\\s+${doc.version}\\b`))
  assert.match(text, new RegExp(`Desired version\\s+${doc.desiredVersion}\\b`))
  assert.match(text, new RegExp(`Reported version\\s+${doc.reportedVersion}\\b`))
  // the pending rows are marked for the eye too
  const marked = await page.$$eval('tr.pending th', (ths) => ths.map((th) => th.textContent))
  assert.equal(marked.sort(), ['schedule', 'setpoint'])
  assert.equal(await axeViolations(page), [])
})

test('Edit desired state :: the typed patch is sent with the version read, 200, the region shows it', async () => {
  const before = await docOf(lamp)
  const dialog = await openEditor()
  const area = await byRole(dialog, 'textbox', TEXTAREA)
  assert.equal(JSON.parse(await valueOf(area)), before.desired, 'starts from the desired state')
  assert.equal(await axeViolations(page), [])
  await typePatch(dialog, '{"setpoint": 22, "schedule": null}')
  await (await byRole(dialog, 'button', 'Save')).click()
  await noDialog()
  await matchesSoon(() => rowOf('setpoint'), /^setpoint\s+22\s+—\s+pending\s+22/)
  assert.is(await rowWith(page, TABLE, 'schedule'), null)
  assert.equal(patches.at(-1), {
    path: statePath(lamp),
    body: { desired: { setpoint: 22, schedule: null }, version: before.desiredVersion },
  })
  const after = await docOf(lamp)
  assert.equal(after.desired, { setpoint: 22, mode: 'eco' })
  assert.is(after.desiredVersion, before.desiredVersion + 1)
  assert.match(await textOf(await region()), /1 key pending/)
})

test('invalid JSON :: refused in an alert, nothing sent; Cancel leaves the document as it was', async () => {
  const sent = patches.length
  const before = await docOf(lamp)
  const dialog = await openEditor()
  for (const [typed, why] of [
    ['{"setpoint": 23', /^Not JSON: /],
    ['not json', /^Not JSON: /],
    ['[1, 2]', /must be a JSON object/],
    ['"on"', /must be a JSON object/],
    ['null', /must be a JSON object/],
  ] as const) {
    await typePatch(dialog, typed)
    await (await byRole(dialog, 'button', 'Save')).click()
    await matchesSoon(async () => textOf(await byRole(dialog, 'alert')), why)
    assert.is(await valueOf(await byRole(dialog, 'textbox', TEXTAREA)), typed, 'the text is kept')
  }
  assert.equal(await axeViolations(page), [])
  assert.is(patches.length, sent, 'nothing sent')
  await (await byRole(dialog, 'button', 'Cancel')).click()
  await noDialog()
  assert.equal(await docOf(lamp), before)
})

test('409 :: changed through the API twice while editing; each conflict shows the current desired, the text kept; then saved', async () => {
  const opened = await docOf(lamp)
  const dialog = await openEditor()
  const typed = '{"setpoint": 23}'
  for (const [i, change] of [{ mode: 'away' }, { mode: 'night', fan: 2 }].entries()) {
    const now = await desire(lamp, change)
    await typePatch(dialog, typed)
    await (await byRole(dialog, 'button', 'Save')).click()
    await matchesSoon(
      async () => textOf(await byRole(dialog, 'alert')),
      new RegExp(
        `changed meanwhile \\(desired version ${opened.desiredVersion + i} → ${now.desiredVersion}\\)`,
      ),
    )
    const current = await byRole(
      dialog,
      'figure',
      `Current desired state (desired version ${now.desiredVersion})`,
    )
    const shown = await textOf(current)
    assert.match(shown, i === 0 ? /Changed meanwhile: mode/ : /Changed meanwhile: fan, mode/)
    assert.equal(JSON.parse(shown.slice(shown.indexOf('{'))), now.desired)
    assert.is(
      await valueOf(await byRole(dialog, 'textbox', TEXTAREA)),
      typed,
      'the typed text is kept',
    )
    assert.is(
      patches.at(-1)!.body.version,
      opened.desiredVersion + i,
      'sent with the version it was based on',
    )
  }
  assert.equal(await axeViolations(page), [])
  // saved over the version read at the last conflict
  await (await byRole(dialog, 'button', 'Save')).click()
  await noDialog()
  const doc = await docOf(lamp)
  assert.equal(doc.desired, { setpoint: 23, mode: 'night', fan: 2 })
  assert.is(patches.at(-1)!.body.version, doc.desiredVersion - 1)
  await matchesSoon(() => rowOf('setpoint'), /^setpoint\s+23\b/)
  await matchesSoon(() => rowOf('fan'), /^fan\s+2\s+—\s+pending/)
})

test('live :: the device reports what is desired over MQTT; the delta empties on the page without a reload', async () => {
  // a mark on the page's global object: a reload would drop it
  await page.evaluate(() => void ((globalThis as { stateMark?: number }).stateMark = 1))
  await report(lamp, { setpoint: 23 })
  await matchesSoon(() => rowOf('setpoint'), /^setpoint\s+23\s+23\s+—/)
  assert.match(await textOf(await region()), /2 keys pending/)
  await report(lamp, { mode: 'night', fan: 2 })
  await matchesSoon(async () => textOf(await region()), /In desired state/)
  assert.equal(await page.$$('tr.pending'), [])
  assert.match(await rowOf('fan'), /^fan\s+2\s+2\s+—/)
  assert.is(
    await page.evaluate(() => (globalThis as { stateMark?: number }).stateMark),
    1,
    'no reload',
  )
  const doc = await docOf(lamp)
  assert.equal(doc.delta, {})
  assert.match(
    await textOf(await region()),
    new RegExp(`Reported version\\s+${doc.reportedVersion}\\b`),
  )
})

test('the Power switch :: a desired value not yet reported shows "off → on pending", gone once reported', async () => {
  const console_ = await byRole(page, 'region', 'Console')
  await report(lamp, { power: 0 })
  await desire(lamp, { power: 1 })
  // the template's name, its switch (still Off: the device reported 0), then what is pending
  await matchesSoon(() => textOf(console_), /Power\s+Off\s+off → on\s+pending/)
  await byRole(page, 'switch', 'Power')
  await report(lamp, { power: 1 })
  await matchesSoon(async () => (/→/.test(await textOf(console_)) ? 'shown' : 'gone'), /^gone$/)
  assert.equal(await axeViolations(page), [])
})

test('devices list :: the pending device marked, the other not; State filter lists only it, stateDelta=1 in the address and the call', async () => {
  await desire(lamp, { setpoint: 30 })
  await desire(fan, { mode: 'eco' })
  await report(fan, { mode: 'eco' })
  await until(
    async () => (await t.admin.get(`/api/v1/devices/${fan.id}`)).body.stateDelta,
    (s) => s === 0,
  )
  await go('/devices')
  const rowText = async (name: string) => {
    const link = await byRole(page, 'link', name)
    return textOf((await link.evaluateHandle((a) => a.closest('tr'))) as ElementHandle)
  }
  await matchesSoon(() => rowText(lamp.deviceName), /Pending state/)
  assert.not.match(await rowText(fan.deviceName), /Pending state/)
  assert.equal(await axeViolations(page), [])

  const asked = page.waitForRequest((r) => /\/api\/v1\/devices\?.*stateDelta=1/.test(r.url()))
  await (await byRole(page, 'combobox', 'State')).select('1')
  await asked
  await until(
    () => allByRole(page, 'link', fan.deviceName),
    (l) => l.length === 0,
  )
  await byRole(page, 'link', lamp.deviceName)
  assert.is(new URL(page.url()).searchParams.get('stateDelta'), '1')
  const listed = await page.$$eval('tbody tr', (rows) => rows.map((r) => r.textContent ?? ''))
  assert.ok(
    listed.length >= 1 && listed.every((r) => r.includes('Pending state')),
    listed.join('\n'),
  )

  // the filter survives a reload; the marker follows the device's report live
  await page.reload()
  await byRole(page, 'link', lamp.deviceName)
  assert.equal(await allByRole(page, 'link', fan.deviceName), [])
  const select = await byRole(page, 'combobox', 'State')
  assert.is(await valueOf(select), '1')
  await report(lamp, { setpoint: 30 })
  await matchesSoon(
    async () => ((await rowText(lamp.deviceName)).includes('Pending state') ? 'marked' : 'not'),
    /^not$/,
  )
  await select.select('')
  await byRole(page, 'link', fan.deviceName)
  assert.is(new URL(page.url()).searchParams.get('stateDelta'), null)
})

test('group page :: Set desired state to both members, followed to done with the counts; again: unchanged', async () => {
  await go(`/groups/${groupID}`)
  const form = await byRole(page, 'region', 'Set desired state')
  const area = await byRole(form, 'textbox', TEXTAREA)
  await area.type('[')
  await (await byRole(form, 'button', 'Set desired state')).click()
  await matchesSoon(async () => textOf(await byRole(form, 'alert')), /^Not JSON/)
  assert.is(patches.filter((p) => p.path.includes('/groups/')).length, 0)
  const figure = async (label: string) =>
    Number(new RegExp(`${label}\\s+(\\d+)`).exec(await textOf(form))?.[1])
  for (const [changed, unchanged] of [
    [2, 0],
    [0, 2],
  ]) {
    const sent = patches.length
    await typePatch(form, '{"mode": "sleep"}')
    await (await byRole(form, 'button', 'Set desired state')).click()
    await until(
      async () => patches.length,
      (n) => n > sent,
    )
    await matchesSoon(
      async () => textOf(await byRole(form, 'status', 'Desired state task status')),
      /^done$/,
      15_000,
    )
    assert.equal(
      [
        await figure('Total'),
        await figure('Changed'),
        await figure('Unchanged'),
        await figure('Failed'),
      ],
      [2, changed, unchanged, 0],
    )
  }
  assert.equal(patches.at(-1), {
    path: `/api/v1/groups/${groupID}/state`,
    body: { desired: { mode: 'sleep' } },
  })
  for (const d of [lamp, fan]) assert.is((await docOf(d)).desired.mode, 'sleep')
  assert.equal(await axeViolations(page), [])
})

test('a viewer :: the State region and the list marker, no Edit desired state, no Set desired state', async () => {
  await signInViewer(page, t, `${t.url}/devices/${lamp.id}`)
  await byRole(page, 'table', TABLE)
  assert.match(await rowOf('mode'), /^mode\s+"sleep"\s+"night"\s+pending/)
  assert.equal(await allByRole(page, 'button', 'Edit desired state'), [])
  assert.equal(await axeViolations(page), [])
  await go(`/groups/${groupID}`)
  await byRole(page, 'heading', `floor-${tag}`)
  assert.equal(await allByRole(page, 'region', 'Set desired state'), [])
  assert.equal(await allByRole(page, 'button', 'Set desired state'), [])
  await go('/devices?stateDelta=1')
  await byRole(page, 'combobox', 'State')
})

runWithChromium(ui)
