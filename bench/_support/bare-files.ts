/**
 * The ceiling of the firmware download bench: a bare Node HTTP server, its own process, answering every GET with
 * the file at `path` through `fs.createReadStream(...).pipe(res)` (no routing, no authentication). Prints `{"url"}`
 * once it listens, then `{"cpuMs"}` (its CPU since it started) for each `cpu` line on its standard input.
 * argv: <path>
 */
import { createReadStream, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'

const path = process.argv[2]!
const size = statSync(path).size
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size })
  createReadStream(path).pipe(res)
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/f` }))
})
const cpu0 = process.cpuUsage()
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'cpu') break
  const c = process.cpuUsage(cpu0)
  console.log(JSON.stringify({ cpuMs: Math.round((c.user + c.system) / 1000) }))
}
server.close()
process.exit(0)
