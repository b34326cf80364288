/**
 * HTTP download load generator, its own process: `concurrent` downloads of `url` at once (each with credentials of
 * its own when `auths` are given), each read to its end and dropped, each started again until `seconds` passed.
 * Prints `{"downloads", "bytes", "ms", "mbps", "errors", "cpuMs"}`: the aggregate throughput (MiB/s) over the whole
 * run and this process's CPU.
 * argv: <json | @file> = {url, concurrent, seconds, auths?: string[]}
 */
import { request } from 'node:http'
import { argJson } from './runner.ts'

interface Opts {
  url: string
  concurrent: number
  seconds: number
  auths?: string[]
}

const o = argJson<Opts>(process.argv[2]!)
let downloads = 0
let bytes = 0
let errors = 0

/** One download to its end: the bytes it read, or an error counted. */
function download(i: number): Promise<void> {
  return new Promise((resolve) => {
    const auth = o.auths?.length ? o.auths[i % o.auths.length] : undefined
    const req = request(o.url, { headers: auth ? { authorization: auth } : {} }, (res) => {
      if (res.statusCode !== 200) errors++
      res.on('data', (chunk: Buffer) => (bytes += chunk.length))
      res.on('end', () => {
        downloads++
        resolve()
      })
      res.on('error', () => {
        errors++
        resolve()
      })
    })
    req.on('error', () => {
      errors++
      resolve()
    })
    req.end()
  })
}

const t0 = performance.now()

async function worker(_: unknown, i: number) {
  do await download(i)
  while (performance.now() - t0 < o.seconds * 1000)
}

const cpu0 = process.cpuUsage()
await Promise.all(Array.from({ length: o.concurrent }, worker))
const ms = performance.now() - t0
const c = process.cpuUsage(cpu0)
console.log(
  JSON.stringify({
    downloads,
    bytes,
    ms: Math.round(ms),
    mbps: Math.round(bytes / 2 ** 20 / (ms / 1000)),
    errors,
    cpuMs: Math.round((c.user + c.system) / 1000),
  }),
)
process.exit(0)
