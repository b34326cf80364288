/**
 * A closed-loop HTTP load generator, run as its own process so it does not share the server's event loop:
 * `connections` keep-alive sockets, each sending the next request when the last answer arrived, for `seconds`.
 * Prints one JSON line: {requests, errors, rps, p50, p99, max, mean, cpu} (latencies in ms; cpu: this load generator's
 * CPU over the measured window, % of one core).
 * argv: <json options> (inline, or @file) = {url: string, paths: string[], connections, seconds, warmup, headers}
 */
import http from 'node:http'
import { argJson } from './runner.ts'

interface Options {
  url: string
  paths: string[]
  connections: number
  seconds: number
  warmup: number
  headers?: Record<string, string>
}

const opts = argJson<Options>(process.argv[2]!)
const base = new URL(opts.url)
const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections })

function once(path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: base.hostname, port: base.port, path, agent, headers: opts.headers },
      (res) => {
        res.on('data', () => {})
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', () => resolve(0))
    req.end()
  })
}

async function run(seconds: number, record: boolean) {
  const latencies: number[] = []
  let errors = 0
  let n = 0
  const end = performance.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      while (performance.now() < end) {
        const path = opts.paths[n++ % opts.paths.length]!
        const t0 = performance.now()
        const status = await once(path)
        if (!record) continue
        latencies.push(performance.now() - t0)
        if (status !== 200) errors++
      }
    }),
  )
  return { latencies, errors }
}

await run(opts.warmup, false)
const cpu0 = process.cpuUsage()
const t0 = performance.now()
const { latencies, errors } = await run(opts.seconds, true)
const elapsed = (performance.now() - t0) / 1000
const cpuUsed = process.cpuUsage(cpu0)
latencies.sort((a, b) => a - b)
const pct = (p: number) =>
  Number(
    (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(2),
  )
console.log(
  JSON.stringify({
    requests: latencies.length,
    errors,
    rps: Math.round(latencies.length / elapsed),
    p50: pct(0.5),
    p99: pct(0.99),
    max: pct(1),
    mean: Number((latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1)).toFixed(2)),
    cpu: Math.round(((cpuUsed.user + cpuUsed.system) / 1e6 / elapsed) * 100),
  }),
)
agent.destroy()
