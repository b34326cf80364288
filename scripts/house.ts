/**
 * `node scripts/house.ts`: the figures a maintainer watches in the house (docs/code-tour.md, "The house's figures"):
 * functions by length over the production folders (TypeScript's AST: a function, method, arrow or accessor, from
 * its first line to its last), `any` in test/, files per folder, and the README's size.
 * `--json` prints them as JSON; `--long N` lists the functions over N lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const ROOT = new URL('..', import.meta.url).pathname
const PRODUCTION = ['src', 'ingest', 'query', 'store']

/** Every file under `dir` (relative to the root) whose name matches, node_modules and dot folders aside. */
export function filesUnder(dir: string, match: RegExp): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(join(ROOT, d))) {
      if (name === 'node_modules' || name.startsWith('.')) continue
      const rel = `${d}/${name}`
      if (statSync(join(ROOT, rel)).isDirectory()) walk(rel)
      else if (match.test(name)) out.push(rel)
    }
  }
  walk(dir)
  return out.sort()
}

export interface FunctionSize {
  file: string
  name: string
  line: number
  lines: number
}

/** The name a function goes by: its own, its variable's, its property's or its class member's. */
function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node }
  if (named.name && ts.isIdentifier(named.name)) return named.name.text
  if (named.name) return named.name.getText()
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return nameOf(parent)
  if (ts.isCallExpression(parent))
    return `(callback of ${parent.expression.getText().slice(0, 40)})`
  return '(anonymous)'
}

/** The functions of one source file (`text`: its source, else read from the tree) with their length in lines. */
export function functionSizes(
  file: string,
  text = readFileSync(join(ROOT, file), 'utf8'),
): FunctionSize[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const out: FunctionSize[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line
      out.push({ file, name: nameOf(node), line: first + 1, lines: last - first + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** Every function of the production folders (src, ingest, query, store; the console included). */
export function productionFunctions(): FunctionSize[] {
  return PRODUCTION.flatMap((d) => filesUnder(d, /\.tsx?$/))
    .filter((f) => !f.endsWith('.d.ts'))
    .flatMap((f) => functionSizes(f))
}

/** Occurrences of the type `any` in test/ (`: any`, `as any`, `<any>`, `any[]`). */
export function testAnys(): number {
  let n = 0
  for (const f of filesUnder('test', /\.tsx?$/)) {
    const text = readFileSync(join(ROOT, f), 'utf8')
    n += text.match(/(:\s*any\b|\bas any\b|<any>|\bany\[\]|<any,|, any>)/g)?.length ?? 0
  }
  return n
}

function figures() {
  const fns = productionFunctions()
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n')
  if (readme.at(-1) === '') readme.pop()
  return {
    functionsOver80: fns.filter((f) => f.lines > 80).length,
    functionsOver150: fns.filter((f) => f.lines > 150).length,
    testAny: testAnys(),
    readmeLines: readme.length,
    readmeWidest: Math.max(...readme.map((l) => l.length)),
    filesIn: Object.fromEntries(
      ['store/libsql', 'store/tsdb', 'ingest', 'ingest/broker', 'ingest/external'].map((d) => {
        try {
          return [d, readdirSync(join(ROOT, d)).filter((n) => /\.tsx?$/.test(n)).length]
        } catch {
          return [d, 0]
        }
      }),
    ),
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const long = process.argv.indexOf('--long')
  if (long > 0) {
    const limit = Number(process.argv[long + 1] ?? 80)
    for (const f of productionFunctions()
      .filter((f) => f.lines > limit)
      .sort((a, b) => b.lines - a.lines))
      console.log(
        `${String(f.lines).padStart(4)}  ${f.name}  ${relative('.', join(ROOT, f.file))}:${f.line}`,
      )
  } else if (process.argv.includes('--json')) console.log(JSON.stringify(figures(), null, 2))
  else for (const [k, v] of Object.entries(figures())) console.log(`${k}: ${JSON.stringify(v)}`)
}
