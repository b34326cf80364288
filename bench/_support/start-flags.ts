import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')

/**
 * The node flags `npm start` gives the service (package.json's start script, `exec node <flags> --import tsx
 * src/main.ts`), for a bench process that runs the service, so that it measures what `npm start` runs.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const m = /^exec node ((?:--\S+ )*)--import tsx src\/main\.ts$/.exec(pkg.scripts.start)
  if (!m)
    throw new Error(
      `package.json's start script is not node <flags> src/main.ts: ${pkg.scripts.start}`,
    )
  return m[1]!.split(' ').filter(Boolean)
}
