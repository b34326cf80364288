/**
 * Request bodies under a byte limit: a declared length over it is refused before authentication, and a body is
 * read only when a handler asks for it, after authentication, up to the limit (an unauthenticated caller makes the
 * service hold none of it). Under Node's server (@hono/node-server) the body is read from the `IncomingMessage`
 * itself: hono's `bodyLimit` reads `c.req.raw.body`, which makes the adapter build a whole web `Request` (undici's,
 * with a ReadableStream over the socket and an AbortSignal) for every POST and PUT, ~18% of the main thread's work
 * for a command in a CPU profile. Without Node's request (`app.request()`), hono's `bodyLimit` and `Request` serve.
 * Handlers read the body with `bodyText` or `bodyBytes`, never `c.req.text()`.
 */
import { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { ApiError } from '../errors.ts'
import type { AppEnv } from './env.ts'

/** UTF-8 as `Request.text()` decodes it: a leading BOM dropped, bad sequences replaced. */
const utf8 = new TextDecoder()

/**
 * Reads a request's body; past `maxSize` bytes it stops reading (the answer closes the connection) and fails with
 * `tooLarge()`. A declared length over the limit is limitBody's to refuse, before this is called.
 */
function readIncoming(
  req: IncomingMessage,
  maxSize: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  // read by something else already: its 'end' will not come again (a fault here, not the client's)
  if (req.readableEnded) return Promise.reject(new Error('the request body was read already'))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = (outcome: Buffer | Error) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxSize) {
        req.pause()
        finish(tooLarge())
      } else chunks.push(chunk)
    }
    const onEnd = () => finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    const onError = (e: Error) => finish(e)
    // the client went away before the end of its body: nobody is left to answer
    const onClose = () => {
      if (!req.complete) finish(new ApiError('BAD_REQUEST', { body: 'the body was cut off' }))
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}

/**
 * The body limit of a group of routes: a declared length over `maxSize` bytes is refused with PAYLOAD_TOO_LARGE
 * before any handler (or the authentication) runs; a body without a declared length is refused once it crosses
 * the limit while read. Nothing is read until a handler asks (`bodyBytes`, `bodyText`), after authentication:
 * a request refused before that leaves its body unread and its connection is closed (src/service.ts).
 * `webRequest`: the handler reads the body from the web Request itself (a multipart upload): hono's limit only.
 */
export function limitBody(
  maxSize: number,
  opts: { webRequest?: boolean } = {},
): MiddlewareHandler<AppEnv> {
  const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', { body: `at most ${maxSize} bytes` })
  const fallback = bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge()
    },
  })
  return async (c, next) => {
    const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming
    if (opts.webRequest || !(incoming instanceof IncomingMessage)) return fallback(c, next)
    if (Number(incoming.headers['content-length']) > maxSize) throw tooLarge()
    let read: Promise<Buffer> | undefined
    c.set('body', () => (read ??= readIncoming(incoming, maxSize, tooLarge)))
    await next()
  }
}

/** The request body's bytes (read under limitBody's limit, or from the web Request without Node's server). */
export async function bodyBytes(c: Context<AppEnv>): Promise<Buffer> {
  const read = c.get('body')
  return read ? read() : Buffer.from(await c.req.arrayBuffer())
}

/** The request body as text (UTF-8, as `Request.text()` decodes it). */
export async function bodyText(c: Context<AppEnv>): Promise<string> {
  const read = c.get('body')
  return read ? utf8.decode(await read()) : c.req.text()
}
