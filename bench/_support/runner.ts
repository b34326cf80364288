import { spawn } from 'node:child_process'
import { join } from 'node:path'

export interface LoadResult {
  requests: number
  errors: number
  rps: number
  p50: number
  p99: number
  max: number
}

/** Runs bench/_support/load.ts in a child process against `url` and returns its figures. */
export function load(opts: {
  url: string
  paths: readonly string[]
  connections: number
  seconds?: number
  warmup?: number
  headers?: Record<string, string>
}): Promise<LoadResult> {
  const args = JSON.stringify({ seconds: 5, warmup: 1, ...opts })
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'load.ts'), args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadResult)
      } catch {
        reject(new Error(`load generator failed (${code}): ${out}`))
      }
    })
  })
}

/** A markdown table of rows. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n')
}
