/**
 * The frame every console suite shares: its own service and Chromium (started in its before hook, stopped in its
 * after hook), its cases under `shot`, and the steps its cases repeat (the admin's and a new viewer's sign-in, a
 * search of the devices list).
 */
import type { Browser, Page } from 'puppeteer-core'
import type { Test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  startTestService,
  type Client,
  type TestService,
} from '../_support/service.ts'
import { until } from '../ingest/_mqtt.ts'
import { allByRole, byRole, closeBrowser, openPage, shot, signIn, type InPage } from './_browser.ts'

/** The service a console suite drives, and Chromium with the suite's first page. */
export interface ConsoleRun {
  t: TestService
  browser: Browser
  page: Page
}

/** Starts the service (with `env`), then Chromium with one page of that viewport; the service closes if that fails. */
export async function startConsole(
  width: number,
  height: number,
  env: Record<string, string> = {},
): Promise<ConsoleRun> {
  const t = await startTestService(env)
  try {
    return { t, ...(await openPage(width, height)) }
  } catch (err) {
    await t.close()
    throw err
  }
}

/** Closes the browser, then the service (either is undefined when the before hook failed before it). */
export async function stopConsole(browser: Browser | undefined, t: TestService | undefined) {
  await closeBrowser(browser)
  await t?.close()
}

/** The cases of `ui`, each saving a screenshot of `page()` when it fails, as `<prefix>-<what the case tests>`. */
export const shotCases =
  (ui: Test, prefix: string, page: () => Page) => (name: string, fn: () => Promise<void>) =>
    ui(name, () => shot(page(), `${prefix}-${name.split(' :: ')[0]}`, fn))

/** Signs in through the form (after opening `url` when given) and waits for the shell's Sign out button. */
async function signedIn(page: Page, email: string, password: string, url?: string) {
  if (url !== undefined) await page.goto(url)
  await signIn(page, email, password)
  await byRole(page, 'button', 'Sign out')
}

/** Signs in as the admin, after opening `url` when given. */
export const signInAdmin = (page: Page, url?: string) =>
  signedIn(page, ADMIN_EMAIL, ADMIN_PASSWORD, url)

/** Signs out, then in as a new viewer of `t`'s tenant, after opening `url` when given. */
export async function signInViewer(page: Page, t: TestService, url?: string) {
  const viewer = await t.userWithRole('viewer')
  await (await byRole(page, 'button', 'Sign out')).click()
  await signedIn(page, viewer.email, 'user-password-1', url)
}

/**
 * In-app navigation of `page` to `path` (the History API, as a link does): each page load would leave its event
 * stream's connection behind in Chromium's pool of 6 per host until the page's later requests stall.
 */
export const goTo = (page: Page, path: string) =>
  page.evaluate((p) => {
    const w = globalThis as InPage
    w.history.pushState(null, '', p)
    w.dispatchEvent(new w.PopStateEvent('popstate'))
  }, path)

/** Types `query` into the devices list's search: the link `gone` leaves the page (asserted), the link `kept` stays. */
export async function searchDevices(page: Page, query: string, gone: string, kept: string) {
  await (await byRole(page, 'searchbox', 'Search devices')).type(query)
  await until(
    async () => (await allByRole(page, 'link', gone)).length,
    (n) => n === 0,
  )
  assert.is((await allByRole(page, 'link', gone)).length, 0)
  await byRole(page, 'link', kept)
}

/** Creates a switch app template (`templateType` 1) named `name` on the product's data point, through the API. */
export async function switchTemplate(
  c: Client,
  productID: string,
  dataPointIntID: number,
  name: string,
) {
  const r = await c.post('/api/v1/app_templates', {
    templateName: name,
    templateType: 1,
    productID,
    dataPointIntID,
  })
  assert.is(r.status, 201, r.text)
}
