/**
 * Groups, group commands and schedules in real Chromium against the real service, with real MQTT devices that
 * answer their commands: a group created and filled through the page, a group command followed live to succeeded
 * (and to partial with a member offline), a device schedule from the command composer, disable and delete in
 * /schedules, a refused cron in role alert, a viewer without write controls, axe-core on each page.
 */
import type { MqttClient } from 'mqtt'
import type { Browser, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  answerCommand,
  collectCommands,
  connectDevice,
  end,
  fullTopic,
  until,
  type Command,
} from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { Page as ListPage, Wire } from '../_support/wire.ts'
import type { Group, GroupDevice, GroupListItem } from '../../src/schemas/groups.ts'
import {
  allByRole,
  axeViolations,
  byRole,
  runWithChromium,
  textBecomes,
  textOf,
} from './_browser.ts'
import { goTo, shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
const devices: NewDevice[] = []
let group: Wire<typeof GroupListItem>
let foreignGroup: Wire<typeof Group>
const clients: MqttClient[] = []
const got = new Map<string, Command[]>()
const tag = Date.now().toString(36)
const groupName = `floor-${tag}`
const scheduleName = `nightly-${tag}`
/** Every API request the page made, as `METHOD path`. */
const requests: string[] = []

const ui = suite('groups and schedules in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1200, 1000))
  const product = await mkProduct(t.admin)
  const temp = await mkPoint(t.admin, product.id, 'temp')
  const stream = await mkStream(t.admin, product.productID, [temp.id], { topic: 'telemetry' })
  for (const name of ['alpha', 'beta', 'gamma'])
    devices.push(
      await newDevice(t.admin, mqttBody(product.productID, { deviceName: `${name}-${tag}` })),
    )
  // alpha and beta are online and answer every command with code 200; gamma stays offline
  for (const d of devices.slice(0, 2)) {
    const c = await connectDevice(t, d)
    const topic = await fullTopic(t, d, stream.topic)
    got.set(d.deviceID, [])
    collectCommands(c, got.get(d.deviceID)!, (m) => {
      if (m.data_type === 'request') void answerCommand(c, topic, m.task_id)
    })
    clients.push(c)
  }
  const other = await t.newTenant()
  const otherProduct = await mkProduct(other)
  const r = await other.post('/api/v1/groups', {
    productID: otherProduct.productID,
    groupName: 'theirs',
  })
  assert.is(r.status, 201, r.text)
  foreignGroup = r.body
  page.on('dialog', (d) => void d.accept())
  page.on('request', (r) => {
    const u = new URL(r.url())
    if (u.pathname.startsWith('/api/v1/')) requests.push(`${r.method()} ${u.pathname}`)
  })
})

ui.after(async () => {
  for (const c of clients) end(c)
  await stopConsole(browser, t)
})

const test = shotCases(ui, 'groups-schedules', () => page)

const click = async (role: string, name: string) => (await byRole(page, role, name)).click()
/** In-app navigation (goTo): the page keeps one event stream. */
const go = (path: string) => goTo(page, path)
const figure = async (label: string) => {
  const text = await textOf(await byRole(page, 'region', 'Group command progress'))
  return Number(new RegExp(`${label}\\s+(\\d+)`).exec(text)?.[1])
}

test('New group :: created through the form, stored, listed with a link to its page', async () => {
  await signInAdmin(page, `${t.url}/`)
  await click('link', 'Groups')
  await click('button', 'New group')
  await (await byRole(page, 'textbox', 'Group name')).type(groupName)
  await (await byRole(page, 'textbox', 'Description')).type('two answering devices')
  await click('button', 'Save')
  await byRole(page, 'link', groupName)
  const list = await t.admin.get<ListPage<Wire<typeof GroupListItem>>>(
    `/api/v1/groups?groupName=${groupName}`,
  )
  assert.is(list.body.meta.count, 1)
  group = list.body.items[0]!
  assert.equal(
    [group.description, group.deviceCount, group.productID],
    ['two answering devices', 0, devices[0]!.productID],
  )
  assert.equal(await axeViolations(page), [])
})

test('Add members :: the two picked devices become members, in the API and the table', async () => {
  await click('link', groupName)
  await byRole(page, 'heading', groupName)
  await click('checkbox', devices[0]!.deviceName)
  await click('checkbox', devices[1]!.deviceName)
  await click('button', 'Add selected')
  const members = await byRole(page, 'table', 'Members')
  await until(
    async () => (await allByRole(members, 'link')).length,
    (n) => n === 2,
    5000,
  )
  const r = await t.admin.get<ListPage<Wire<typeof GroupDevice>>>(
    `/api/v1/groups/${group.id}/devices`,
  )
  assert.equal(r.body.items.map((d) => d.deviceName).sort(), [
    devices[0]!.deviceName,
    devices[1]!.deviceName,
  ])
  // the third device is still offered, the added ones no longer
  assert.is((await allByRole(page, 'checkbox', devices[0]!.deviceName)).length, 0)
  await byRole(page, 'checkbox', devices[2]!.deviceName)
  assert.equal(await axeViolations(page), [])
})

test('Send to group :: both members answer, the progress reaches succeeded live, 2 of 2 succeeded', async () => {
  const before = requests.length
  await (await byRole(page, 'textbox', 'Payload')).type('{"led":"off"}')
  await click('button', 'Send to group')
  await textBecomes(await byRole(page, 'status', 'Group command status'), 'Succeeded', 10_000)
  assert.equal(
    [await figure('Total'), await figure('Delivered'), await figure('Succeeded')],
    [2, 2, 2],
  )
  assert.equal([await figure('Failed'), await figure('Pending')], [0, 0])
  for (const d of devices.slice(0, 2))
    assert.ok(got.get(d.deviceID)!.some((m) => m.data?.led === 'off'))
  // followed from the stream: the task is read when sent and once when final, nothing per device
  const made = requests.slice(before)
  assert.ok(made.filter((r) => r.includes('/task_status/')).length <= 2, made.join('\n'))
  assert.not.ok(
    made.some((r) => /\/devices\/\d+|device_control_logs/.test(r)),
    made.join('\n'),
  )
  const logs = await t.admin.get(`/api/v1/groups/${group.id}/control_logs`)
  assert.is(logs.body.items[0].commandStatus, 'succeeded')
  const row = await byRole(page, 'table', 'Control log')
  assert.match(await textOf(row), logs.body.items[0].taskID)
})

test('a member offline :: the group command ends partial, 2 succeeded and 1 failed; When: Every creates a group schedule', async () => {
  const r = await t.admin.post(`/api/v1/groups/${group.id}/devices`, { ids: [devices[2]!.id] })
  assert.is(r.status, 201, r.text)
  await page.reload()
  await (await byRole(page, 'textbox', 'Payload')).type('{"led":"on"}')
  await click('button', 'Send to group')
  await textBecomes(await byRole(page, 'status', 'Group command status'), 'Partial', 10_000)
  // the offline member is unsent (failed); the two online ones succeeded
  assert.equal(
    [await figure('Total'), await figure('Succeeded'), await figure('Failed')],
    [3, 2, 1],
  )
  // the same form with When = Every creates a group schedule
  await page.select('::-p-aria([role="combobox"][name="When"])', 'interval')
  await (await byRole(page, 'textbox', 'Schedule name')).type('hourly')
  await click('button', 'Create schedule')
  const note = await byRole(page, 'status', 'Schedule')
  await until(
    () => textOf(note),
    (x) => x.includes('next run'),
    5000,
  )
  const [s] = (await t.admin.get('/api/v1/group_schedule_publish')).body.items
  assert.equal(
    [s.scheduleName, s.scheduleType, s.IntervalMinute, s.groupID, JSON.parse(s.payload)],
    ['hourly', 2, 60, group.groupID, { led: 'on' }],
  )
  assert.match(await textOf(note), s.nextRunAt)
  // Remove (confirmed) takes the offline member out again
  await click('button', `Remove ${devices[2]!.deviceName}`)
  await byRole(page, 'checkbox', devices[2]!.deviceName)
  const members = await t.admin.get(`/api/v1/groups/${group.id}/devices`)
  assert.is(members.body.meta.count, 2)
})

test('When: Cron in the composer :: a bad cron shows the API refusal, a good one creates the schedule with its next run', async () => {
  await go(`/devices/${devices[0]!.id}`)
  const consoleRegion = await byRole(page, 'region', 'Console')
  await (await byRole(consoleRegion, 'textbox', 'Payload')).type('{"report":1}')
  await page.select('::-p-aria([role="combobox"][name="When"])', 'cron')
  const cron = await byRole(page, 'textbox', 'Cron')
  await cron.click({ count: 3 })
  await cron.type('61 * * * *')
  await (await byRole(page, 'textbox', 'Schedule name')).type(scheduleName)
  await click('button', 'Create schedule')
  const alert = await byRole(page, 'alert')
  assert.match(await textOf(alert), /cron/)
  assert.is((await t.admin.get('/api/v1/device_schedule_publish')).body.meta.count, 0)
  await cron.click({ count: 3 })
  await cron.type('0 3 * * *')
  await click('button', 'Create schedule')
  const note = await byRole(page, 'status', 'Schedule')
  const text = await until(
    () => textOf(note),
    (s) => s.includes('next run'),
    5000,
  )
  const list = await t.admin.get('/api/v1/device_schedule_publish')
  assert.is(list.body.meta.count, 1)
  const s = list.body.items[0]
  assert.equal(
    [s.scheduleName, s.scheduleType, s.cron, s.deviceID, s.enable, JSON.parse(s.payload)],
    [scheduleName, 3, '0 3 * * *', devices[0]!.deviceID, 1, { report: 1 }],
  )
  assert.match(s.nextRunAt, / 03:00:00$/)
  assert.ok(text.includes(s.nextRunAt), text)
  assert.equal(await allByRole(page, 'alert'), [])
  await (await note.$('a'))!.click()
  await byRole(page, 'heading', 'Schedules')
})

test('/schedules :: the schedule listed with its next run; Edit, Disable, then Delete (confirmed) reach the API', async () => {
  const table = await byRole(page, 'table', 'Device schedules')
  await until(
    () => textOf(table),
    (s) => s.includes(scheduleName),
    5000,
  )
  const [s] = (await t.admin.get('/api/v1/device_schedule_publish')).body.items
  assert.match(await textOf(table), s.nextRunAt)
  assert.equal(await axeViolations(page), [])
  await click('button', `Edit ${scheduleName}`)
  const form = await byRole(page, 'form', 'Edit schedule')
  const cron = await byRole(form, 'textbox', 'Cron')
  await cron.click({ count: 3 })
  await cron.type('30 4 * * *')
  await click('button', 'Save')
  await until(
    () => textOf(table),
    (x) => x.includes('30 4 * * *'),
    5000,
  )
  const edited = (await t.admin.get(`/api/v1/device_schedule_publish/${s.id}`)).body
  assert.equal([edited.cron, edited.scheduleName], ['30 4 * * *', scheduleName])
  assert.match(edited.nextRunAt, / 04:30:00$/)
  assert.match(await textOf(table), edited.nextRunAt)
  await click('button', `Disable ${scheduleName}`)
  await byRole(page, 'button', `Enable ${scheduleName}`)
  assert.is((await t.admin.get(`/api/v1/device_schedule_publish/${s.id}`)).body.enable, 0)
  await click('button', `Delete ${scheduleName}`)
  await until(
    () => textOf(table),
    (x) => !x.includes(scheduleName),
    5000,
  )
  assert.is((await t.admin.get(`/api/v1/device_schedule_publish/${s.id}`)).status, 404)
})

test("a viewer :: no write control on /groups, the group's page and /schedules; another tenant's group not found", async () => {
  await signInViewer(page, t)
  // the group chart's range buttons only read
  const readOnly = ['Sign out', 'Previous', 'Next', '1 h', '24 h', '7 d', '30 d']
  const buttons = async () =>
    Promise.all(
      (await allByRole(page, 'button')).map((b) =>
        b.evaluate((e): string => e.textContent?.trim() ?? ''),
      ),
    )
  for (const [path, ready] of [
    ['/groups', ['link', groupName]],
    [`/groups/${group.id}`, ['table', 'Control log']],
    ['/schedules', ['table', 'Group schedules']],
  ] as const) {
    await go(path)
    await byRole(page, ready[0], ready[1])
    if (path === '/schedules') await byRole(page, 'cell', 'hourly')
    const names = await buttons()
    assert.ok(
      names.every((n) => readOnly.includes(n)),
      `${path}: ${names.join(', ')}`,
    )
    assert.equal(await allByRole(page, 'textbox', 'Payload'), [])
    assert.equal(await allByRole(page, 'checkbox'), [])
    assert.equal(await axeViolations(page), [], path)
  }
  await go(`/groups/${foreignGroup.id}`)
  assert.match(await textOf(await byRole(page, 'alert')), /not found/i)
})

runWithChromium(ui)
