/**
 * The admin pages in real Chromium against the real service: a user created through the form signs in with its
 * password, its role changed on the page is what the API says, its password reset (typed twice) and another user
 * deleted (asked first); an application's secret shown once, copied, working as Basic auth and refused once
 * revoked; a certificate created (its PEM and private key shown with Copy), disabled, bound to a device found by
 * name, refused deletion while bound, unbound and deleted; the audit log listing those changes with their user and
 * action labels, narrowed by a user chosen by name, an action, a resource type and a time range kept in the
 * address; the device page's History link opening that device's rows only; a viewer without the admin links, told
 * that /audit is for admins; a second tenant who sees none of it; axe-core and screenshots of each page at
 * 1440x900 and 390x844 (test-artifacts/admin-<width>-<page>.png).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Dialog, ElementHandle, Page } from 'puppeteer-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { until } from '../ingest/_mqtt.ts'
import type { TestService } from '../_support/service.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../src/routes/devices-helpers.ts'
import {
  allByRole,
  ARTIFACTS,
  axeViolations,
  byRole,
  matchesSoon,
  rowSoon,
  runWithChromium,
  signIn,
  textOf,
  type InPage,
} from './_browser.ts'
import { goTo, shotCases, signInAdmin, signInViewer, startConsole, stopConsole } from './_setup.ts'

let t: TestService
let browser: Browser
let page: Page
let product: { id: number; productID: string; productName: string }
let lamp: NewDevice
let fan: NewDevice
let groupID = 0
const tag = Date.now().toString(36)
/** The user made through the form, and its passwords. */
const member = { name: `mira-${tag}`, email: `mira-${tag}@test.local`, id: 0 }
const firstPassword = 'mira-password-1'
const secondPassword = 'mira-password-2'
const appName = `dashboard-${tag}`
const certName = `thermo-cert-${tag}`
/** The second tenant's sign-in and its product. */
const other = { email: `other-${tag}@test.local`, password: 'other-password-1' }
let otherProduct = ''

const ui = suite('admin pages in Chromium')

ui.before(async () => {
  ;({ t, browser, page } = await startConsole(1440, 900))
  await browser
    .defaultBrowserContext()
    .overridePermissions(t.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write'])
  product = await newProduct(t.admin)
  lamp = await newDevice(t.admin, mqttBody(product.productID, { deviceName: `lamp-${tag}` }))
  fan = await newDevice(t.admin, mqttBody(product.productID, { deviceName: `fan-${tag}` }))
  const g = await t.admin.post('/api/v1/groups', {
    productID: product.productID,
    groupName: `hall-${tag}`,
  })
  assert.is(g.status, 201, g.text)
  groupID = g.body.id
  const s = await t.anon.post('/api/v1/signup', {
    email: other.email,
    username: `other-${tag}`,
    password: other.password,
    tenantName: `Other ${tag}`,
  })
  assert.is(s.status, 201, s.text)
  otherProduct = `theirs-${tag}`
  const p = await t.anon.post(
    '/api/v1/products',
    { productName: otherProduct, cloudProtocol: 1 },
    { authorization: `Bearer ${s.body.token}` },
  )
  assert.is(p.status, 201, p.text)
})

ui.after(() => stopConsole(browser, t))

const test = shotCases(ui, 'admin', () => page)
const go = (path: string) => goTo(page, path)
const login = (email: string, password: string) => t.anon.post('/api/v1/login', { email, password })
const clipboard = () => page.evaluate(() => (globalThis as InPage).navigator.clipboard.readText())
const valueOf = (el: ElementHandle) => el.evaluate((e) => (e as unknown as { value: string }).value)

/** The options of a select: [text, value]. */
const optionsOf = (select: ElementHandle) =>
  select.evaluate((s) =>
    [...(s as unknown as { options: Iterable<{ text: string; value: string }> }).options].map(
      (o) => [o.text, o.value] as [string, string],
    ),
  )

/** Chooses the option of a select whose text includes `text`, once it is there (never by id). */
async function choose(select: ElementHandle, text: string) {
  const options = await until(
    () => optionsOf(select),
    (os) => os.some(([label]) => label.includes(text)),
  )
  const value = options.find(([label]) => label.includes(text))?.[1]
  assert.ok(value !== undefined, `an option with "${text}" in ${options.map((o) => o[0]).join()}`)
  await select.select(value)
}

/** Runs `fn` answering the page's confirm() questions with `answers` in turn; answers what was asked. */
async function answering(answers: boolean[], fn: () => Promise<void>): Promise<string[]> {
  const asked: string[] = []
  const onDialog = (d: Dialog) => {
    asked.push(d.message())
    void (answers.shift() ? d.accept() : d.dismiss())
  }
  page.on('dialog', onDialog)
  try {
    await fn()
  } finally {
    page.off('dialog', onDialog)
  }
  return asked
}

/** The cells' texts of each row of the table named `table` (its header row left out). */
const cellsOf = (table: string) =>
  page.evaluate((name) => {
    const d = (globalThis as InPage).document
    const el = [...d.querySelectorAll('table')].find((x) => x.getAttribute('aria-label') === name)
    if (!el) return []
    return [...el.querySelectorAll('tbody tr')].map((r) =>
      [...r.querySelectorAll('td')].map((c) => c.innerText.trim()),
    )
  }, table)

/** The audit log's rows once `ok` holds for them (at most 5 s). */
const auditRows = (ok: (rows: string[][]) => boolean) => until(() => cellsOf('Audit log'), ok)

/** The error shown beside the input (what its aria-describedby names), '' when none. */
const errorBeside = (input: ElementHandle) =>
  input.evaluate((e) => {
    const id = e.getAttribute('aria-describedby')
    if (!id) return ''
    const doc = (globalThis as InPage).document as unknown as {
      getElementById(id: string): { innerText: string } | null
    }
    return doc.getElementById(id)?.innerText ?? ''
  })

type UserRow = { id: number; username: string; email: string }

/** Column indexes of the audit log's table. */
const USER = 1
const ACTION = 2
const RESOURCE = 3
const CHANGED = 4

test('users :: created through the form it signs in; its role changed on the page is what the API says', async () => {
  await signInAdmin(page, `${t.url}/users`)
  await rowSoon(page, 'Users', 'admin@test.local')
  assert.equal(await allByRole(page, 'button', 'Delete admin'), [], 'not oneself')
  await (await byRole(page, 'button', 'New user')).click()
  const dialog = await byRole(page, 'dialog', 'New user')
  await (await byRole(dialog, 'textbox', 'Username')).type(member.name)
  const email = await byRole(dialog, 'textbox', 'Email')
  await email.type('admin@test.local')
  await (await byRole(dialog, 'textbox', 'Password')).type('short-is-long')
  await choose(await byRole(dialog, 'combobox', 'Role'), 'Viewer')
  await (await byRole(dialog, 'button', 'Create')).click()
  // a taken email: refused beside its field, what was typed kept
  await matchesSoon(() => errorBeside(email), /already registered/)
  assert.is(await email.evaluate((e) => e.getAttribute('aria-invalid')), 'true')
  assert.is(await valueOf(await byRole(dialog, 'textbox', 'Username')), member.name)
  assert.equal(await axeViolations(page), [])
  await email.click({ count: 3 })
  await page.keyboard.press('Backspace')
  await email.type(member.email)
  await (await byRole(dialog, 'button', 'Create')).click()
  const row = await rowSoon(page, 'Users', member.email)
  assert.ok(row, 'listed')
  assert.match(
    await textOf(row),
    new RegExp(`${member.name}\\s+${member.email}\\s+Viewer\\s+Enabled\\s+\\d{4}-`),
  )
  assert.is((await login(member.email, 'short-is-long')).status, 201, 'signs in with that password')

  await (await byRole(page, 'button', `Edit ${member.name}`)).click()
  const edit = await byRole(page, 'dialog', `Edit user ${member.name}`)
  assert.is(await valueOf(await byRole(edit, 'textbox', 'Email')), member.email)
  await choose(await byRole(edit, 'combobox', 'Role'), 'User')
  await (await byRole(edit, 'button', 'Save')).click()
  await matchesSoon(async () => textOf((await rowSoon(page, 'Users', member.email))!), /\sUser\s/)
  const users = (await t.admin.get('/api/v1/users?_limit=100')).body.items as Array<{
    id: number
    email: string
  }>
  member.id = users.find((u) => u.email === member.email)!.id
  assert.is((await t.admin.get(`/api/v1/users/${member.id}`)).body.role, 'user')
})

test('users :: a password reset typed twice (a mismatch refused beside it); a user disabled, enabled, deleted', async () => {
  await (await byRole(page, 'button', `Reset password ${member.name}`)).click()
  const dialog = await byRole(page, 'dialog', `Reset the password of ${member.name}`)
  await (await byRole(dialog, 'textbox', 'New password')).type(secondPassword)
  const repeat = await byRole(dialog, 'textbox', 'Repeat the password')
  await repeat.type(firstPassword)
  await (await byRole(dialog, 'button', 'Reset password')).click()
  await matchesSoon(async () => textOf(await byRole(dialog, 'alert')), /the two passwords differ/)
  assert.is(await repeat.evaluate((e) => e.getAttribute('aria-invalid')), 'true')
  assert.equal(await axeViolations(page), [])
  await repeat.click({ count: 3 })
  await page.keyboard.press('Backspace')
  await repeat.type(secondPassword)
  await (await byRole(dialog, 'button', 'Reset password')).click()
  await matchesSoon(
    async () => textOf(await byRole(page, 'main')),
    new RegExp(`The password of ${member.name} was changed\\.`),
  )
  assert.is((await login(member.email, 'short-is-long')).status, 401, 'the old password')
  assert.is((await login(member.email, secondPassword)).status, 201, 'the new one')

  const temp = await t.userWithRole('viewer')
  await go('/applications')
  await go('/users')
  const name = (await t.admin.get(`/api/v1/users/${temp.id}`)).body.username as string
  await rowSoon(page, 'Users', temp.email)

  // Disable, asked first (the first answer is no), signs them out; Enable lets them sign in again
  const enableOf = async () => (await t.admin.get(`/api/v1/users/${temp.id}`)).body.enable as number
  const disableAsked = await answering([false, true], async () => {
    await (await byRole(page, 'button', `Disable ${name}`)).click()
    assert.is(await enableOf(), 1, 'kept when the question is answered no')
    await (await byRole(page, 'button', `Disable ${name}`)).click()
    await until(enableOf, (e) => e === 0)
  })
  const question = `Disable the user ${name}? They are signed out and cannot sign in until enabled again.`
  assert.equal(disableAsked, [question, question])
  await matchesSoon(async () => textOf((await rowSoon(page, 'Users', temp.email))!), /\sDisabled\s/)
  assert.is((await temp.get('/api/v1/products')).status, 401, 'its token')
  assert.is((await login(temp.email, 'user-password-1')).status, 401, 'its sign-in')
  await (await byRole(page, 'button', `Enable ${name}`)).click()
  await until(enableOf, (e) => e === 1)
  await matchesSoon(async () => textOf((await rowSoon(page, 'Users', temp.email))!), /\sEnabled\s/)
  assert.is((await login(temp.email, 'user-password-1')).status, 201, 'signs in again')
  // oneself: neither Disable nor Delete
  const users = (await t.admin.get('/api/v1/users?_limit=100')).body.items as UserRow[]
  const me = users.find((u) => u.email === 'admin@test.local')!.username
  assert.is((await allByRole(page, 'button', `Disable ${me}`)).length, 0)
  assert.is((await allByRole(page, 'button', `Delete ${me}`)).length, 0)
  const asked = await answering([false, true], async () => {
    await (await byRole(page, 'button', `Delete ${name}`)).click()
    await until(
      async () => (await t.admin.get(`/api/v1/users/${temp.id}`)).status,
      (s) => s === 200,
    )
    await (await byRole(page, 'button', `Delete ${name}`)).click()
    await until(
      async () => (await t.admin.get(`/api/v1/users/${temp.id}`)).status,
      (s) => s === 404,
    )
  })
  assert.equal(asked, [
    `Delete the user ${name}? They can no longer sign in.`,
    `Delete the user ${name}? They can no longer sign in.`,
  ])
  await until(
    async () => (await allByRole(page, 'button', `Delete ${name}`)).length,
    (n) => n === 0,
  )
})

test('applications :: the secret shown once, copied, working as Basic auth; revoked, it is refused', async () => {
  await go('/applications')
  await (await byRole(page, 'button', 'New application')).click()
  const form = await byRole(page, 'dialog', 'New application')
  await (await byRole(form, 'textbox', 'Name')).type(appName)
  await choose(await byRole(form, 'combobox', 'Role'), 'Viewer')
  await (await byRole(form, 'button', 'Create')).click()
  const dialog = await byRole(page, 'dialog', `Key of ${appName}`)
  assert.match(await textOf(await byRole(dialog, 'alert')), /it will not be shown again/)
  await (await byRole(dialog, 'button', 'Copy App ID')).click()
  await matchesSoon(async () => textOf(await byRole(dialog, 'status')), /Copied/)
  const appID = await clipboard()
  await (await byRole(dialog, 'button', 'Copy Secret (appToken)')).click()
  await until(clipboard, (s) => s !== appID)
  const token = await clipboard()
  assert.match(appID, /^A\w+$/)
  assert.ok(token.length >= 30, token)
  assert.match(await textOf(dialog), new RegExp(token))
  assert.equal(await axeViolations(page), [])
  await shotNow('secret-dialog')

  const basic = `Basic ${Buffer.from(`${appID}:${token}`).toString('base64')}`
  const ok = await t.anon.get('/api/v1/products', { authorization: basic })
  assert.is(ok.status, 200, ok.text)
  await (await byRole(dialog, 'button', 'Done')).click()
  const row = await rowSoon(page, 'Applications', appName)
  assert.match(await textOf(row!), new RegExp(`${appName}\\s+${appID}\\s+Viewer\\s+Never`))
  assert.not.match(await textOf(await byRole(page, 'main')), new RegExp(token), 'shown once')

  const asked = await answering([true], async () => {
    await (await byRole(page, 'button', `Revoke ${appName}`)).click()
    await until(
      async () => (await allByRole(page, 'button', `Revoke ${appName}`)).length,
      (n) => n === 0,
    )
  })
  assert.match(asked[0]!, new RegExp(`^Revoke the application ${appName}\\?`))
  assert.is((await t.anon.get('/api/v1/products', { authorization: basic })).status, 401)
})

test('certificates :: created with its PEM and key shown (Copy), listed, disabled, bound, deleted', async () => {
  await go('/certs')
  await (await byRole(page, 'button', 'New certificate')).click()
  const form = await byRole(page, 'dialog', 'New certificate')
  await (await byRole(form, 'textbox', 'Name')).type(certName)
  await (await byRole(form, 'textbox', 'Common name (CN, optional)')).type(`thermo-${tag}`)
  await (await byRole(form, 'button', 'Create')).click()
  const dialog = await byRole(page, 'dialog', `Certificate ${certName} created`)
  await (await byRole(dialog, 'button', 'Copy Certificate (PEM)')).click()
  await until(clipboard, (s) => s.startsWith('-----BEGIN CERTIFICATE-----'))
  await (await byRole(dialog, 'button', 'Copy Private key (PEM)')).click()
  await until(clipboard, (s) => s.startsWith('-----BEGIN PRIVATE KEY-----'))
  assert.match(await textOf(await byRole(dialog, 'alert')), /will not show it again/)
  assert.equal(await axeViolations(page), [])
  await (await byRole(dialog, 'button', 'Done')).click()
  const row = await rowSoon(page, 'Certificates', certName)
  assert.match(await textOf(row!), new RegExp(`${certName}\\s+Usable\\s+\\d{4}-`))
  await (await byRole(page, 'button', `Disable ${certName}`)).click()
  await matchesSoon(
    async () => textOf((await rowSoon(page, 'Certificates', certName))!),
    /Unusable/,
  )
  const certs = (await t.admin.get(`/api/v1/certs?name=${certName}`)).body.items
  assert.equal(
    certs.map((c: { enable: number }) => c.enable),
    [0],
  )
  const id = certs[0].id as number

  await (await byRole(page, 'link', certName)).click()
  await byRole(page, 'heading', certName)
  assert.match(await textOf(await byRole(page, 'region', 'Info')), new RegExp(`thermo-${tag}`))
  assert.not.match(
    await textOf(await byRole(page, 'main')),
    /PRIVATE KEY/,
    'the key was shown once',
  )
  await (await byRole(page, 'searchbox', 'Search devices to bind')).type(`lamp-${tag}`)
  await (await byRole(page, 'checkbox', `lamp-${tag}`)).click()
  await (await byRole(page, 'button', 'Bind selected')).click()
  await byRole(await byRole(page, 'table', 'Bound devices'), 'link', `lamp-${tag}`)
  assert.equal(await axeViolations(page), [])
  await answering([true], async () => {
    await (await byRole(page, 'button', 'Delete')).click()
    await matchesSoon(async () => textOf(await byRole(page, 'alert')), /\S/)
  })
  assert.is((await t.admin.get(`/api/v1/certs/${id}`)).status, 200, 'refused while bound')
  await answering([true, true], async () => {
    await (await byRole(page, 'button', `Unbind lamp-${tag}`)).click()
    await until(
      async () => (await allByRole(page, 'link', `lamp-${tag}`)).length,
      (n) => n === 0,
    )
    await (await byRole(page, 'button', 'Delete')).click()
    await byRole(page, 'heading', 'Certificates')
  })
  assert.is((await t.admin.get(`/api/v1/certs/${id}`)).status, 404)
  await byRole(page, 'table', 'Certificates')
  assert.equal(await allByRole(page, 'link', certName), [])
})

test('audit log :: those changes with their user and action labels; by resource type and by action', async () => {
  await go('/audit')
  await byRole(page, 'table', 'Audit log')
  const form = await byRole(page, 'search', 'Filters')
  await choose(await byRole(form, 'combobox', 'Resource type'), 'User')
  const users = await auditRows(
    (rows) => rows.length > 0 && rows.every((r) => r[RESOURCE]!.startsWith('User')),
  )
  assert.is(new URL(page.url()).search, '?resourceType=user')
  const of = (rows: string[][], action: string, name: string) =>
    rows.filter((r) => r[ACTION] === action && r[RESOURCE]!.includes(name))
  const created = of(users, 'Create', member.name)
  assert.is(created.length, 1, JSON.stringify(users))
  assert.match(created[0]![USER]!, /^admin\s+admin@test\.local/)
  assert.equal(
    of(users, 'Update', member.name).map((r) => r[CHANGED]),
    ['password', 'role'],
    'newest first: the password, then the role',
  )
  assert.ok(of(users, 'Sign in', member.name).length >= 2, 'its sign-ins')
  assert.is(of(users, 'Failed sign-in', member.name).length, 1, 'the old password')
  assert.equal(await axeViolations(page), [])

  await choose(await byRole(form, 'combobox', 'Resource type'), 'Certificate')
  const certs = await auditRows((rows) => rows.some((r) => r[ACTION] === 'Remove devices'))
  assert.equal(
    certs.map((r) => r[ACTION]),
    ['Delete', 'Remove devices', 'Add devices', 'Update', 'Create'],
  )
  assert.ok(
    certs.every((r) => r[RESOURCE] === `Certificate ${certName}`),
    JSON.stringify(certs),
  )

  await choose(await byRole(form, 'combobox', 'Resource type'), 'Any type')
  await choose(await byRole(form, 'combobox', 'Action'), 'Delete')
  const deletes = await auditRows(
    (rows) => rows.length > 0 && rows.every((r) => r[ACTION] === 'Delete'),
  )
  for (const name of [`Application ${appName} `, `Certificate ${certName}`])
    assert.ok(
      deletes.some((r) => r[RESOURCE]!.startsWith(name)),
      name,
    )
  assert.is(new URL(page.url()).searchParams.get('action'), 'delete')
  // the labels in Chinese
  await (await byRole(page, 'combobox', 'Language')).select('zh')
  await auditRows((rows) => rows.length > 0 && rows.every((r) => r[ACTION] === '删除'))
  await (await byRole(page, 'combobox', '语言')).select('en')
  await (await byRole(form, 'button', 'Clear filters')).click()
  await until(
    async () => new URL(page.url()).search,
    (s) => s === '',
  )
})

test('audit log :: a user chosen by name, and a time range kept in the address', async () => {
  const mira = (await login(member.email, secondPassword)).body.token as string
  const made = await t.anon.post(
    '/api/v1/products',
    { productName: `mira-product-${tag}`, cloudProtocol: 1 },
    { authorization: `Bearer ${mira}` },
  )
  assert.is(made.status, 201, made.text)
  await go('/audit')
  const form = await byRole(page, 'search', 'Filters')
  const select = await byRole(form, 'combobox', 'User')
  await choose(select, `${member.name} (${member.email}, User)`)
  const rows = await auditRows(
    (rs) => rs.length > 0 && rs.every((r) => r[USER]!.startsWith(member.name)),
  )
  assert.equal(rows[0]![ACTION], 'Create')
  assert.match(rows[0]![RESOURCE]!, new RegExp(`^Product mira-product-${tag} `))
  assert.is(new URL(page.url()).searchParams.get('userIntID'), String(member.id))

  // a range after every row: none; the range's bounds are kept as typed, in the address
  await go('/audit?startTime=2099-01-01 00:00:05')
  const from = await byRole(page, 'search', 'Filters')
  await auditRows((rs) => rs.length === 0)
  await matchesSoon(async () => textOf(await byRole(page, 'main')), /Nothing here\./)
  const input = await from.waitForSelector('::-p-aria(From \\(UTC\\))')
  assert.is(await valueOf(input!), '2099-01-01T00:00:05')
  await go('/audit?endTime=2099-01-01 00:00:00')
  await auditRows((rs) => rs.length > 0)
})

test('history :: the device page’s link opens that device’s rows only; the product and group pages link theirs', async () => {
  for (const d of [lamp, fan]) {
    const r = await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 1 })
    assert.is(r.status, 200, r.text)
  }
  assert.is((await t.admin.put(`/api/v1/devices/${lamp.id}`, { blocked: 0 })).status, 200)
  await go(`/devices/${lamp.id}`)
  await byRole(page, 'heading', lamp.deviceName)
  await (await byRole(page, 'link', 'History')).click()
  await byRole(page, 'table', 'Audit log')
  const q = new URL(page.url()).searchParams
  assert.equal([q.get('resourceType'), q.get('resourceIntID')], ['device', String(lamp.id)])
  const rows = await auditRows((rs) => rs.some((r) => r[ACTION] === 'Unblock'))
  // the resource: its type, its name, then its public id (the deviceID)
  const device = `Device ${lamp.deviceName} ${lamp.deviceID}`
  assert.equal(
    rows.map((r) => [r[ACTION], r[RESOURCE]]),
    [
      ['Unblock', device],
      ['Block', device],
      ['Create', device],
    ],
  )
  await matchesSoon(
    async () => textOf(await byRole(page, 'status')),
    new RegExp(`^History of device ${lamp.deviceName}$`),
  )
  assert.equal(await axeViolations(page), [])
  // the resource's name leads to its page
  await (await allByRole(page, 'link', lamp.deviceName))[0]!.click()
  await byRole(page, 'heading', lamp.deviceName)

  for (const [path, href] of [
    [`/products/${product.id}`, `/audit?resourceType=product&resourceIntID=${product.id}`],
    [`/groups/${groupID}`, `/audit?resourceType=group&resourceIntID=${groupID}`],
  ] as const) {
    await go(path)
    const link = await byRole(page, 'link', 'History')
    assert.is(await link.evaluate((e) => e.getAttribute('href')), href)
  }
  await (await byRole(page, 'link', 'History')).click()
  const group = await auditRows((rs) => rs.length > 0)
  assert.ok(
    group.every((r) => r[RESOURCE]!.startsWith(`Group hall-${tag} `)),
    JSON.stringify(group),
  )
})

/** A screenshot of the page now, as test-artifacts/admin-<width>-<name>.png. */
async function shotNow(name: string) {
  mkdirSync(ARTIFACTS, { recursive: true })
  const width = page.viewport()?.width ?? 0
  await page.screenshot({ path: join(ARTIFACTS, `admin-${width}-${name}.png`), fullPage: true })
}

test('widths :: each page at 1440x900 and 390x844: no serious axe violation, a screenshot', async () => {
  const cert = await t.admin.post('/api/v1/certs', { name: `gateway-cert-${tag}`, enable: 1 })
  assert.is(cert.status, 201, cert.text)
  await t.admin.post(`/api/v1/certs/${cert.body.id}/devices`, { devicesIntID: [fan.id] })
  const app = await t.admin.post('/api/v1/applications', {
    appName: `reporting-${tag}`,
    expiredAt: '2030-12-31 23:59:59',
  })
  assert.is(app.status, 201, app.text)
  const pages: Array<[string, string, string]> = [
    ['users', '/users', 'Users'],
    ['applications', '/applications', 'Applications'],
    ['certs', '/certs', 'Certificates'],
    ['cert', `/certs/${cert.body.id}`, `gateway-cert-${tag}`],
    ['audit', '/audit', 'Audit log'],
  ]
  const found: string[] = []
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    await page.setViewport({ width, height })
    for (const [name, path, heading] of pages) {
      await go(path)
      await byRole(page, 'heading', heading)
      await new Promise((r) => setTimeout(r, 500))
      for (const v of await axeViolations(page)) found.push(`${width} ${name}: ${v}`)
      await shotNow(name)
    }
  }
  await page.setViewport({ width: 1440, height: 900 })
  assert.equal(found, [])
})

test('a viewer :: none of the admin links; /audit, /users and /applications say they are for admins; no History', async () => {
  const nav = await byRole(page, 'navigation', 'Main')
  const links = await Promise.all((await allByRole(nav, 'link')).map(textOf))
  assert.equal(links.slice(-4), ['Users', 'Applications', 'Certificates', 'Audit log'], 'last')
  await signInViewer(page, t, `${t.url}/`)
  const viewerNav = await byRole(page, 'navigation', 'Main')
  await byRole(viewerNav, 'link', 'Devices')
  for (const name of ['Users', 'Applications', 'Certificates', 'Audit log'])
    assert.equal(await allByRole(viewerNav, 'link', name), [], name)
  for (const [path, heading] of [
    ['/audit', 'Audit log'],
    ['/users', 'Users'],
    ['/applications', 'Applications'],
  ] as const) {
    await go(path)
    await byRole(page, 'heading', heading)
    assert.match(await textOf(await byRole(page, 'note')), /This page is for admins\./)
    assert.equal(await allByRole(page, 'table'), [])
  }
  assert.equal(await axeViolations(page), [])
  await go(`/devices/${lamp.id}`)
  await byRole(page, 'heading', lamp.deviceName)
  assert.equal(await allByRole(page, 'link', 'History'), [])
})

test('tenants :: a second tenant’s admin sees its own rows, none of the first tenant’s', async () => {
  await (await byRole(page, 'button', 'Sign out')).click()
  await signIn(page, other.email, other.password)
  await byRole(page, 'button', 'Sign out')
  await go('/audit')
  const rows = await auditRows((rs) =>
    rs.some((r) => r[RESOURCE]!.startsWith(`Product ${otherProduct} `)),
  )
  const text = JSON.stringify(rows)
  for (const theirs of ['admin@test.local', member.name, appName, certName, lamp.deviceName])
    assert.not.match(text, theirs)
  const select = await byRole(page, 'combobox', 'User')
  const options = (await optionsOf(select)).map((o) => o[0])
  assert.equal(options, ['Any user', `other-${tag} (${other.email}, Admin)`])
})

runWithChromium(ui)
