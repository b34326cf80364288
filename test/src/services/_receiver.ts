/** A webhook receiver for the tests: a real node:http server that records every request and answers as told. */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  path: string
  headers: Record<string, string | string[] | undefined>
  body: string
}

export interface Receiver {
  url: string
  got: Received[]
  /** Statuses to answer next, in order; 200 once they run out. */
  answers: number[]
  /** How long to wait before answering (a slow receiver). */
  delayMs: number
  close(): Promise<void>
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const got: Received[] = []
  const answers: number[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      })
      res.statusCode = answers.shift() ?? 200
      setTimeout(() => res.end('ok'), rx.delayMs ?? 0)
    })
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const rx: Receiver = {
    url,
    got,
    answers,
    delayMs: 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
  return rx
}
