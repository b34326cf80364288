/**
 * One Chinese glossary across the console: every Chinese string of the console (src/console/i18n.ts's table, every
 * page's and component's `words(en, zh)`, the enumeration labels of enum-labels.ts) is read from the sources with
 * the TypeScript parser, and none may hold an English word (a status left untranslated, "定长binary") other than the
 * technical names kept as they are (MQTT, JSON, ...), nor a term the glossary replaces ("数据点" is "功能点").
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import ts from 'typescript'

const ROOT = join(import.meta.dirname, '../..')
const CONSOLE = join(ROOT, 'src/console')

/** Names kept in Latin letters in Chinese too: protocols, formats, products, units and codes. */
const KEPT = new Set(
  (
    'DeviceCloud MQTT MQTTS CoAP LwM2M LoRa HTTP HTTPS WebSocket Modbus JSON CSV QoS SHA ID IDs URL API MAC IMEI ' +
    'IMSI Wi-Fi Wi Fi NB-IoT IoT PEM CN TLS TTL Cron Webhook OpenStreetMap Token PNG TCP IP RFC UTC ' +
    'mosquitto_pub mosquitto_sub Range ETag CA X.509 CDN OTA SSE SHA-256 YYYY-MM-DD HH App appToken Basic ' +
    'Natural Earth null ' +
    // the words of a formula written as the API takes it (a rule's condition)
    'and or not temp hum'
  ).split(' '),
)

/** Terms of the glossary: the variant → the word the console uses. */
const GLOSSARY: Record<string, string> = { 数据点: '功能点', 记录ID: '名称' }

/** Every .ts/.tsx file under `dir`. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  )

/** The string literals (and template texts) inside `node`. */
function strings(node: ts.Node, out: string[] = []): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text)
  else if (ts.isTemplateExpression(node)) {
    out.push(node.head.text)
    for (const span of node.templateSpans) out.push(span.literal.text)
  }
  node.forEachChild((c) => void strings(c, out))
  return out
}

/** The Chinese tables of a source file: `words(en, zh)`'s second argument, and objects named zh* (`const zh = {}`). */
function chineseTables(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'words')
      if (n.arguments[1]) strings(n.arguments[1], found)
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && /^zh/.test(n.name.text))
      if (n.initializer) strings(n.initializer, found)
    n.forEachChild(visit)
  }
  visit(src)
  return found
}

/** The English words of a Chinese string that are not kept names. */
const english = (s: string) =>
  (s.match(/[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]/g) ?? []).filter(
    (w) => !KEPT.has(w) && !/^[A-Z0-9]{1,3}$/.test(w) && !/^(e\.g|deviceName|value)$/.test(w),
  )

const glossary = suite('console Chinese glossary')

glossary('the sources :: the parser finds the Chinese tables of the console', () => {
  const all = sources(CONSOLE).flatMap(chineseTables)
  assert.ok(all.length > 500, `${all.length} Chinese strings`)
  assert.ok(all.includes('退出登录'))
})

glossary('every Chinese string :: no English word left untranslated, no replaced term', () => {
  const bad: string[] = []
  for (const file of sources(CONSOLE))
    for (const s of chineseTables(file)) {
      const where = relative(ROOT, file)
      // placeholders such as {deviceName} and {value:temp} are the API's syntax, kept as typed
      const words = english(s.replace(/\{[^}]*\}/g, ''))
      if (words.length) bad.push(`${where}: "${s}" (${words.join(', ')})`)
      for (const [variant, term] of Object.entries(GLOSSARY))
        if (s.includes(variant))
          bad.push(`${where}: "${s}" says ${variant}, the glossary's word is ${term}`)
    }
  assert.equal(bad, [])
})

glossary.run()
