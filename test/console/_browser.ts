/**
 * Real Chromium for the console's tests (puppeteer-core driving Debian's `chromium`; nothing downloaded). Elements
 * are found by role and accessible name (`::-p-aria(...)`), never by CSS class. A failing case leaves a screenshot
 * in test-artifacts/. Without chromium a file registers no tests (and says so), except under CI, where that fails.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core'
import { suite, type Test } from 'uvu'
import * as assert from 'uvu/assert'
import { until } from '../ingest/_mqtt.ts'

export const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts')
const AXE = join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js')
export const CHROMIUM_MISSING = 'chromium not found: install Debian package chromium'

/** The chromium executable on PATH, if any. */
export function chromiumPath(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined
    } catch {
      // next name
    }
  }
  return undefined
}

export function launch(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--lang=en-US'],
  })
}

/** Chromium with one page of that viewport (the browser and the page; close the browser after). */
export async function openPage(
  width = 1200,
  height = 900,
): Promise<{ browser: Browser; page: Page }> {
  const browser = await launch(chromiumPath()!)
  const page = await browser.newPage()
  await page.setViewport({ width, height })
  return { browser, page }
}

/**
 * Runs a browser suite when chromium is on PATH. Without it the file registers no tests and says so, except under
 * CI, which installs chromium (.ci/run): there a missing browser is a failure, not a skip.
 */
export function runWithChromium(ui: Test) {
  if (chromiumPath()) return ui.run()
  if (!process.env.CI) return console.log(CHROMIUM_MISSING)
  const missing = suite('chromium in CI')
  missing('chromium :: on PATH', () => {
    assert.unreachable(CHROMIUM_MISSING)
  })
  missing.run()
}

/** `[role=...][name=...]` as a p-aria selector. */
export const aria = (role: string, name?: string) =>
  `::-p-aria([role="${role}"]${name === undefined ? '' : `[name="${name.replace(/"/g, '\\"')}"]`})`

/** Waits for the element of that role and name, in the page or within an element (throws after `timeout` ms). */
export async function byRole(
  page: Page | ElementHandle,
  role: string,
  name?: string,
  timeout = 5000,
): Promise<ElementHandle> {
  const el = await page.waitForSelector(aria(role, name), { timeout })
  if (!el) throw new Error(`no ${role} named ${name}`)
  return el as ElementHandle
}

/** The elements of that role (and name) now on the page. */
export const allByRole = (page: Page | ElementHandle, role: string, name?: string) =>
  page.$$(aria(role, name))

/** Selects `value` once the select lists it (a product select reads its options after the form opens). */
export async function selectListed(select: ElementHandle, value: string) {
  await until(
    () =>
      select.evaluate((el) =>
        [...(el as unknown as { options: Iterable<{ value: string }> }).options].map(
          (o) => o.value,
        ),
      ),
    (values) => values.includes(value),
    5000,
  )
  assert.equal(await select.select(value), [value])
}

export const textOf = (el: ElementHandle) => el.evaluate((e) => e.innerText as string)

/** Waits until the element's text is `want` (at most `timeoutMs`), and asserts that it is. */
export async function textBecomes(el: ElementHandle, want: string, timeoutMs = 5000) {
  assert.is(
    await until(
      () => textOf(el),
      (s) => s === want,
      timeoutMs,
    ),
    want,
  )
}

/** An element as a page callback reads it: these tests compile without the DOM library, so it is declared here. */
export interface PageElement {
  tagName: string
  innerText: string
  clientWidth: number
  offsetHeight: number
  getAttribute(name: string): string | null
  querySelectorAll(selector: 'canvas'): Iterable<PageCanvas>
  querySelectorAll(selector: string): Iterable<PageElement>
  blur(): void
}

/** A canvas as a page callback reads its pixels. */
export interface PageCanvas {
  width: number
  height: number
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray }
  } | null
}

/**
 * `globalThis` as a page callback sees it, with the few browser globals the tests read (they compile without the
 * DOM library): `(globalThis as InPage).document`.
 */
export type InPage = typeof globalThis & {
  document: {
    activeElement: PageElement | null
    querySelectorAll(selector: string): Iterable<PageElement>
  }
  navigator: {
    clipboard: { readText(): Promise<string> }
    locks: { query(): Promise<{ held?: Array<{ name?: string }> }> }
  }
  localStorage: { getItem(key: string): string | null }
  history: { pushState(data: unknown, unused: string, url: string): void }
  PopStateEvent: new (type: string) => object
  dispatchEvent(event: object): boolean
  getComputedStyle(el: PageElement): { paddingLeft: string; paddingRight: string }
}

/** Waits until `read()` matches `re` (at most `timeoutMs`), and asserts that it does. */
export async function matchesSoon(read: () => Promise<string>, re: RegExp, timeoutMs = 5000) {
  assert.match(await until(read, (s) => re.test(s), timeoutMs), re)
}

/** The row of the table named `table` whose text includes `text`; null while there is none. */
export async function rowWith(
  page: Page,
  table: string,
  text: string,
): Promise<ElementHandle | null> {
  for (const row of await allByRole(await byRole(page, 'table', table), 'row'))
    if ((await textOf(row)).includes(text)) return row
  return null
}

/** Waits (at most `timeoutMs`) for the row of `table` whose text includes `text`; null if none came. */
export const rowSoon = (page: Page, table: string, text: string, timeoutMs = 5000) =>
  until(
    () => rowWith(page, table, text),
    (r) => r !== null,
    timeoutMs,
  )

/** Pixels of the figure's canvases in the series' blue (#2563eb), not the grey of axes and grid. */
export const bluePixels = (figure: ElementHandle) =>
  figure.evaluate((f: PageElement) => {
    let n = 0
    for (const c of f.querySelectorAll('canvas')) {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data
      for (let i = 0; i < d.length; i += 4) if (d[i + 3]! > 0 && d[i + 2]! > 180 && d[i]! < 120) n++
    }
    return n
  })

/** Signs in through the form. */
export async function signIn(page: Page, email: string, password: string) {
  await (await byRole(page, 'textbox', 'Email')).type(email)
  await (await byRole(page, 'textbox', 'Password')).type(password)
  await (await byRole(page, 'button', 'Sign in')).click()
}

/**
 * Runs `fn`, failing it after `limitMs` (a browser step that never settles must fail its case, not hang the file);
 * on failure saves a screenshot of the page as test-artifacts/<name>.png and rethrows.
 */
export async function shot<T>(
  page: Page,
  name: string,
  fn: () => Promise<T>,
  limitMs = 60_000,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${name}: still running after ${limitMs} ms`)),
      limitMs,
    )
  })
  try {
    return await Promise.race([fn(), limit])
  } catch (err) {
    mkdirSync(ARTIFACTS, { recursive: true })
    const file = join(ARTIFACTS, `${name.replace(/[^\w-]+/g, '_')}.png`)
    await page.screenshot({ path: file, fullPage: true }).catch(() => {})
    console.error(`screenshot: ${file}`)
    throw err
  } finally {
    clearTimeout(timer)
  }
}

/** axe-core's serious and critical violations on the page now (`id: targets`). */
export async function axeViolations(page: Page): Promise<string[]> {
  // evaluated over the devtools protocol, which the page's CSP (no inline script) does not stop
  await page.evaluate(readFileSync(AXE, 'utf8'))
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<AxeResult> } }).axe
    const r = await axe.run()
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  })
}

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>
}

/**
 * Closes the browser, killing it when it has not closed within 10 s (a browser that never exits must not hang the
 * file's after hook).
 */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 10_000)))
  const done = await Promise.race([browser.close().then(() => 'closed' as const), late]).catch(
    () => 'late' as const,
  )
  clearTimeout(timer)
  if (done === 'late') browser.process()?.kill('SIGKILL')
}
