/**
 * Live-stream clients, run as their own process: `reading` raw HTTP requests to `GET /api/v1/events/stream` that
 * read their socket and count `telemetry` frames, and `stalled` ones that never read until told to stop. Prints
 * `{"ready":true}` once every stream answered; on a line `stop` on stdin the stalled clients read what is left
 * (2 s), then it prints one JSON line {reading: [counts], stalled: [{overflow, missed, closed}], cpu} and exits.
 * cpu: this process's CPU from ready to stop, in % of one core.
 * argv: <json> = {url, token, reading, stalled}
 */
import { request, type IncomingMessage } from 'node:http'
import { createInterface } from 'node:readline'
import { argJson } from './runner.ts'

interface Opts {
  url: string
  token: string
  reading: number
  stalled: number
}

const o = argJson<Opts>(process.argv[2]!)
const MARK = 'event: telemetry\n'

function open(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${o.url}/api/v1/events/stream?types=telemetry`, {
      headers: { authorization: `Bearer ${o.token}` },
      agent: false,
    })
    req.on('error', reject)
    req.on('response', resolve)
    req.end()
  })
}

/** Counts the frames of a response as they arrive (a frame's mark may straddle two chunks). */
function counter(res: IncomingMessage) {
  const c = { telemetry: 0, text: '', closed: false }
  let tail = ''
  res.setEncoding('latin1')
  res.on('data', (d: string) => {
    const s = tail + d
    let at = -1
    while ((at = s.indexOf(MARK, at + 1)) >= 0) c.telemetry++
    tail = s.slice(-(MARK.length - 1))
    if (s.includes('event: overflow')) c.text += s.slice(s.indexOf('event: overflow'))
  })
  const closed = () => (c.closed = true)
  res.on('close', closed)
  res.on('error', closed)
  return c
}

const readers = await Promise.all(Array.from({ length: o.reading }, open))
const counts = readers.map(counter)
const stalled = await Promise.all(Array.from({ length: o.stalled }, open))
for (const s of stalled) s.pause()
console.log(JSON.stringify({ ready: true }))
const cpu0 = process.cpuUsage()
const t0 = performance.now()

const lines = createInterface({ input: process.stdin })
for await (const line of lines) if (line.trim() === 'stop') break
const used = process.cpuUsage(cpu0)
const seconds = (performance.now() - t0) / 1000
const late = stalled.map((s) => {
  const c = counter(s)
  s.resume()
  return c
})
await new Promise((r) => setTimeout(r, 2000))
console.log(
  JSON.stringify({
    reading: counts.map((c) => c.telemetry),
    stalled: late.map((c) => ({
      overflow: c.text.includes('event: overflow'),
      missed: Number(/"missed":(\d+)/.exec(c.text)?.[1] ?? 0),
      closed: c.closed,
    })),
    cpu: Math.round((used.user + used.system) / 10_000 / seconds),
  }),
)
for (const r of [...readers, ...stalled]) r.destroy()
process.exit(0)
