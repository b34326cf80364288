/**
 * Paths named in prose exist: every repository path (`src/…`, `store/…`, `ingest/…`, `query/…`, `test/…`,
 * `bench/…`, `scripts/…`, `docs/…`) in a comment of the production files (src, ingest, query, store), and every
 * backticked file or folder and every link of the documents (README.md, docs/, bench/README.md, each room's
 * README.md; in a code-tour entry relative to its folder). A renamed or removed file then fails here instead of
 * leaving a comment that sends the reader nowhere.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import ts from 'typescript'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readTree } from './_support/architecture.ts'

const root = join(import.meta.dirname, '..')
const exists = (p: string) => existsSync(join(root, p))

/** A repository path in prose: a top folder, then path characters, not ending in punctuation. */
const REPO_PATH =
  /(?<![\w./-])((?:src|store|ingest|query|test|bench|scripts|docs)\/(?:[\w.-]+\/)*[\w-]*(?:\.[\w-]+)*\/?)/g

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

/** A backticked word of a document that names a file (with an extension) or a folder (with a trailing `/`). */
const README_PATH = /^(?:[\w.-]+\/)*(?:[\w-]+\.(?:ts|tsx|sql|sh|json|md|css)|[\w-]+\/)$/

/** A code-tour entry naming its folder: a table row (`| \`folder/\` | … |`) or a list item (`- \`folder/\`: …`). */
const ROW_FOLDER = /^(?:\|\s*|- )`([\w/.-]+\/)`(?:\s*\||:)/

/**
 * `doc:line: path` for every backticked path of a document (README.md, docs/*.md, a room's README.md) that does not
 * exist: in a code-tour entry relative to that entry's folder, the document's own folder or the root; elsewhere
 * relative to the document's folder or the root. Also every relative link target (`[text](path)`), relative to the
 * document. `ignored` paths (the .gitignore's, made by runs) are not checked.
 */
export function missingInReadme(
  readme: string,
  has: (p: string) => boolean,
  ignored: readonly string[] = [],
  name = 'README.md',
): string[] {
  const dir = posix.dirname(name) === '.' ? '' : posix.dirname(name)
  const lines = readme.split('\n')
  let folder = ''
  return lines.flatMap((line, k) => {
    const entry = ROW_FOLDER.exec(line)?.[1]
    // a list item's folder holds for its continuation lines
    if (entry !== undefined) folder = entry
    else if (!line.startsWith('  ')) folder = ''
    const named = [...line.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1]!)
      .filter((p) => README_PATH.test(p) && p !== folder && !ignored.includes(p))
      .filter((p) => ![join(folder, p), join(dir, p), p].some((q) => has(q.replace(/\/$/, ''))))
    const linked = [...line.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter(
        (p) => !/^[a-z]+:/.test(p) && !has(posix.normalize(posix.join(dir, p)).replace(/\/$/, '')),
      )
    return [...named, ...linked].map((p) => `${name}:${k + 1}: ${p}`)
  })
}

/** The documents whose paths are checked: the README, docs/, bench/README.md and each room's README.md. */
export function documents(root: string): string[] {
  const rooms = ['src', 'ingest', 'query', 'store'].flatMap((d) =>
    walkMarkdown(root, d).filter((f) => f.endsWith('/README.md')),
  )
  return ['README.md', 'bench/README.md', ...walkMarkdown(root, 'docs'), ...rooms]
}

function walkMarkdown(root: string, dir: string): string[] {
  if (!existsSync(join(root, dir))) return []
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walkMarkdown(root, rel)
    return e.name.endsWith('.md') ? [rel] : []
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
  const doc = [
    '- `src/kernel/`: `config.ts`, `lost.ts`,',
    '  `config.ts` again, [config](../src/kernel/config.ts), [gone](gone.md), [web](https://x.y/z.md)',
    'Back at the root: `config.ts` and [the store](../store/meta/).',
  ].join('\n')
  assert.equal(missingInReadme(doc, has, [], 'docs/x.md'), [
    'docs/x.md:1: lost.ts',
    'docs/x.md:2: gone.md',
    'docs/x.md:3: config.ts',
  ])
})

paths('comments of src, ingest, query, store :: every path they name exists', () => {
  const { files } = readTree(root)
  const sources = files.map((f) => [f, readFileSync(join(root, f), 'utf8')] as [string, string])
  const missing = missingInComments(sources, exists)
  assert.ok(missing.length === 0, `${missing.length} missing:\n${missing.join('\n')}`)
})

paths(
  "README.md, docs/, bench/ and the rooms' READMEs :: every backticked file and folder, every link exists",
  () => {
    const ignored = readFileSync(join(root, '.gitignore'), 'utf8').split('\n')
    const docs = documents(root)
    assert.ok(
      docs.includes('docs/hot-path.md') && docs.includes('store/tsdb/README.md'),
      docs.join(', '),
    )
    const missing = docs.flatMap((d) =>
      missingInReadme(readFileSync(join(root, d), 'utf8'), exists, ignored, d),
    )
    assert.ok(missing.length === 0, `${missing.length} missing:\n${missing.join('\n')}`)
  },
)

paths.run()
