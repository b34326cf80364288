import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')

/**
 * The node flags `npm start` gives the service (package.json's start script, `node scripts/build.ts --if-stale &&
 * exec node <flags> dist/server/main.js`), for a bench process that runs the service, built or from the sources, so
 * that it measures what `npm start` runs.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const m = /&& exec node ((?:--\S+ )*)dist\/server\/main\.js$/.exec(pkg.scripts.start)
  if (!m)
    throw new Error(
      `package.json's start script does not end in exec node <flags> dist/server/main.js: ${pkg.scripts.start}`,
    )
  return m[1]!.split(' ').filter(Boolean)
}
