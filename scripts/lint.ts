/**
 * `npm run lint`: ESLint over the whole repository (eslint.config.js) as two processes side by side, the production
 * code and the rest (`test/`, `bench/`), each with a cache of its own in node_modules/.cache/. Type-aware rules spend
 * most of a run type-checking the files they lint, one core at a time: a cold run took 45-56 s as one process on 2
 * vCPU and ~40 s as two. Extra arguments go to both (`npm run lint -- --fix`). Exits non-zero when either finds
 * anything.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..')
const ESLINT = join(ROOT, 'node_modules/eslint/bin/eslint.js')
const extra = process.argv.slice(2)

/** The two halves: everything but test/ and bench/ (so no file is left out), and those two. */
const halves = [
  {
    name: 'production',
    args: ['.', '--ignore-pattern', 'test/**', '--ignore-pattern', 'bench/**'],
  },
  { name: 'tests', args: ['test', 'bench'] },
]

function lint(name: string, args: string[]): Promise<{ code: number; out: string }> {
  const cache = ['--cache', '--cache-location', `node_modules/.cache/eslint-${name}/`]
  const child = spawn(process.execPath, [ESLINT, ...args, ...cache, ...extra], { cwd: ROOT })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += String(d)))
  child.stderr.on('data', (d: Buffer) => (out += String(d)))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, out })))
}

// printed whole, one half after the other, rather than interleaved as they come
const results = await Promise.all(halves.map((h) => lint(h.name, h.args)))
for (const r of results) process.stdout.write(r.out)
process.exit(results.some((r) => r.code !== 0) ? 1 : 0)
