/**
 * A multipart/form-data upload read as it arrives (busboy, the only home of it): its text fields, and its one file
 * part handed as a stream to `receive` (which writes it somewhere), so the body is never held whole in memory. Under
 * Node's server the body is read from the IncomingMessage itself; without it (`app.request()`), from the web Request.
 */
import { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import busboy from 'busboy'
import type { Context } from 'hono'
import { ApiError } from '../errors.ts'
import type { AppEnv } from './env.ts'

/** The parts of an upload: its text fields, and what `receive` made of its file part (undefined: none came). */
export interface Upload<F> {
  fields: Record<string, string>
  file: F | undefined
  /** The file part passed `maxBytes` (what `receive` made of it is cut there). */
  truncated: boolean
}

/**
 * Reads the request's multipart body: fields (at most 16, each 4 KiB) and the file part named `fileField`, handed to
 * `receive` with the fields that came before it. When `receive` refuses (throws), the read ends at once with that
 * error: the rest of the body is dropped, and the answer closes the connection.
 */
export function readUpload<F>(
  c: Context<AppEnv>,
  opts: {
    fileField: string
    maxBytes: number
    receive: (stream: Readable, fieldsBefore: Readonly<Record<string, string>>) => Promise<F>
  },
): Promise<Upload<F>> {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming
  const node = incoming instanceof IncomingMessage ? incoming : undefined
  const headers = node?.headers ?? Object.fromEntries(c.req.raw.headers)
  let parser: busboy.Busboy
  try {
    parser = busboy({
      headers,
      limits: { files: 1, fields: 16, fieldSize: 4096, parts: 17, fileSize: opts.maxBytes },
    })
  } catch {
    throw new ApiError(
      'BAD_REQUEST',
      { body: 'a multipart/form-data body is expected' },
      'The request body is not multipart/form-data',
    )
  }
  const body = node ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body) : Readable.from([]))
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {}
    let file: Promise<F> | undefined
    let truncated = false
    parser.on('field', (name, value) => (fields[name] = value))
    parser.on('file', (name, stream) => {
      stream.on('error', () => {}) // a part cut off: the parser reports it too
      if (name !== opts.fileField || file) return void stream.resume()
      stream.once('limit', () => (truncated = true))
      file = opts.receive(stream, { ...fields })
      file.catch((e: unknown) => {
        stream.resume()
        body.unpipe(parser)
        body.resume() // the rest of the body is read and dropped
        reject(e)
      })
    })
    // `on`, not `once`: a malformed body can make the parser emit more than one error
    parser.on('error', (e) => {
      body.unpipe(parser)
      body.resume() // the rest of the body is read and dropped
      reject(
        new ApiError(
          'BAD_REQUEST',
          { body: `not a readable multipart body: ${(e as Error).message}` },
          'The request body is not a readable multipart/form-data body',
        ),
      )
    })
    parser.once('close', () => {
      if (!file) return resolve({ fields, file: undefined, truncated })
      file.then((f) => resolve({ fields, file: f, truncated }), reject)
    })
    body.pipe(parser)
  })
}
