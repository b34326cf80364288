/**
 * Paths named in prose exist: every repository path (`src/…`, `store/…`, `ingest/…`, `query/…`, `test/…`,
 * `bench/…`, `scripts/…`) in a comment of the production files (src, ingest, query, store), and every backticked
 * file or folder of README.md (in the code tour, relative to its row's folder). A renamed or removed file then
 * fails here instead of leaving a comment that sends the reader nowhere.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readTree } from './_support/architecture.ts'

const root = join(import.meta.dirname, '..')
const exists = (p: string) => existsSync(join(root, p))

/** A repository path in prose: a top folder, then path characters, not ending in punctuation. */
const REPO_PATH =
  /(?<![\w./-])((?:src|store|ingest|query|test|bench|scripts)\/(?:[\w.-]+\/)*[\w-]*(?:\.[\w-]+)*\/?)/g

/** The comments of a TypeScript source: [line, text] (the scanner's, so never text inside strings). */
export function commentsOf(source: string): Array<[number, string]> {
  const s = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.JSX, source)
  const out: Array<[number, string]> = []
  for (let k = s.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = s.scan()) {
    if (k === ts.SyntaxKind.SingleLineCommentTrivia || k === ts.SyntaxKind.MultiLineCommentTrivia)
      out.push([source.slice(0, s.getTokenPos()).split('\n').length, s.getTokenText()])
    if (k === ts.SyntaxKind.SlashToken || k === ts.SyntaxKind.SlashEqualsToken) s.reScanSlashToken()
    if (k === ts.SyntaxKind.CloseBraceToken) s.reScanTemplateToken(false)
  }
  return out
}

/** The repository paths a comment names (globs such as `store/meta/*.ts` cut at the glob). */
export function pathsIn(text: string): string[] {
  return [...text.matchAll(REPO_PATH)].map((m) => m[1]!).filter((p) => !p.endsWith('.'))
}

/** `file:line: path` for every path named in a comment of `files` that does not exist. */
export function missingInComments(
  files: ReadonlyArray<[string, string]>,
  has: (p: string) => boolean,
): string[] {
  return files.flatMap(([file, source]) =>
    commentsOf(source).flatMap(([line, text]) =>
      pathsIn(text)
        .filter((p) => !has(p.replace(/\/$/, '')))
        .map((p) => `${file}:${line}: ${p}`),
    ),
  )
}

/** A backticked README word that names a file (with an extension) or a folder (with a trailing `/`). */
const README_PATH = /^(?:[\w.-]+\/)*(?:[\w-]+\.(?:ts|tsx|sql|sh|json|md|css)|[\w-]+\/)$/

/**
 * `README.md:line: path` for every backticked path of the README that does not exist: in a code-tour row
 * (`| \`folder/\` | … |`) relative to that folder or to the root, elsewhere relative to the root. `ignored`
 * paths (the .gitignore's, made by runs) are not checked.
 */
export function missingInReadme(
  readme: string,
  has: (p: string) => boolean,
  ignored: readonly string[] = [],
): string[] {
  return readme.split('\n').flatMap((line, k) => {
    const folder = /^\|\s*`([\w/.-]+\/)`\s*\|/.exec(line)?.[1] ?? ''
    return [...line.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1]!)
      .filter((p) => README_PATH.test(p) && p !== folder && !ignored.includes(p))
      .filter((p) => !has(join(folder, p).replace(/\/$/, '')) && !has(p.replace(/\/$/, '')))
      .map((p) => `README.md:${k + 1}: ${p}`)
  })
}

const paths = suite('paths named in prose')

paths('a comment or README naming a missing file :: each reported with its line', () => {
  const has = (p: string) => ['src/kernel/config.ts', 'store', 'store/meta', 'src'].includes(p)
  const source = [
    '/** Read by src/kernel/config.ts, not src/config.ts; see store/meta/*.ts and src/. */',
    "const s = 'src/gone.ts' // but src/old.ts (ingest/x.ts).",
    'const r = /src\\/x.ts/ // store/y.ts',
  ].join('\n')
  assert.equal(missingInComments([['src/a.ts', source]], has), [
    'src/a.ts:1: src/config.ts',
    'src/a.ts:2: src/old.ts',
    'src/a.ts:2: ingest/x.ts',
    'src/a.ts:3: store/y.ts',
  ])
  const readme = [
    'Settings are read in `src/config.ts`; `text/html`, `./data`, `DATA_DIR/x.db` are no paths.',
    '| `src/kernel/` | `config.ts` (settings), `gone.ts`, `store/`, `made-by-tests/` |',
  ].join('\n')
  assert.equal(missingInReadme(readme, has, ['made-by-tests/']), [
    'README.md:1: src/config.ts',
    'README.md:2: gone.ts',
  ])
})

paths('comments of src, ingest, query, store :: every path they name exists', () => {
  const { files } = readTree(root)
  const sources = files.map((f) => [f, readFileSync(join(root, f), 'utf8')] as [string, string])
  const missing = missingInComments(sources, exists)
  assert.ok(missing.length === 0, `${missing.length} missing:\n${missing.join('\n')}`)
})

paths('README.md :: every backticked file and folder exists', () => {
  const ignored = readFileSync(join(root, '.gitignore'), 'utf8').split('\n')
  const missing = missingInReadme(readFileSync(join(root, 'README.md'), 'utf8'), exists, ignored)
  assert.ok(missing.length === 0, `${missing.length} missing:\n${missing.join('\n')}`)
})

paths.run()
