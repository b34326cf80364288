import type { ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { Context } from 'hono'
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { AppEnv } from '../http/env.ts'
import { SECURITY_HEADERS } from '../http/security-headers.ts'
import { downloadGate } from '../http/download-gate.ts'
import type { Deps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { crud, Form } from '../http/crud.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { readUpload } from '../http/multipart.ts'
import { listQuery } from '../http/paging.ts'
import { Router } from '../http/router.ts'
import { Firmware, FirmwareUpload, firmwareFilters } from '../schemas/firmware.ts'
import { firmwareWire } from '../wire/firmware.ts'
import { ingestSender } from './ingest-request.ts'
import type { FirmwareService } from '../services/firmware.ts'
import type { HttpIngest } from '../../ingest/types.ts'

const tag = 'Firmware'

/** Every download of this process passes one gate: the event loop stays shared with ingest. */
const gate = downloadGate()

/** The header that tells the Node adapter an answer was written to the socket already (its own marker). */
const ALREADY_SENT = Object.fromEntries(RESPONSE_ALREADY_SENT.headers.entries())

/** The byte range a `Range: bytes=…` header asks of `size` bytes: one range, or 'all', or 'unsatisfiable'. */
export function byteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'all' | 'unsatisfiable' {
  if (!header) return 'all'
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!m || (m[1] === '' && m[2] === '')) return 'all' // several ranges or another unit: the whole file
  if (m[1] === '') {
    const suffix = Number(m[2])
    if (suffix === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(m[1])
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (start >= size || end < start) return 'unsatisfiable'
  return { start, end }
}

/** Firmware packages: upload (multipart, streamed), list, detail, delete; a device's download with Range. */
export function firmwareRoutes({ meta, services, config, ingest }: Deps) {
  const firmware = services.firmware
  const detail = Form.of(Firmware, firmwareWire.detail)
  const r = crud(new Router(), {
    tag,
    path: '/firmware',
    store: meta.firmware,
    list: { summary: 'List firmware packages', query: listQuery(firmwareFilters), form: detail },
    detail: { summary: 'A firmware package', form: detail },
    remove: {
      summary: 'Delete firmware packages and their files (all or none)',
      write: (actor, ids) => firmware.remove(actor, ids),
    },
  })

  uploadRoute(r, firmware, config.FIRMWARE_MAX_BYTES)
  downloadRoute(r, firmware, ingest)
  return r
}

/** `POST /firmware`: the multipart upload, its file streamed to disk. */
function uploadRoute(r: Router, firmware: FirmwareService, maxBytes: number) {
  r.typed(
    {
      method: 'post',
      path: '/firmware',
      tag,
      summary: 'Upload a firmware package of a product (multipart/form-data, streamed to disk)',
      description:
        `Fields: \`file\` (the bytes, at most FIRMWARE_MAX_BYTES: ${maxBytes}), \`productID\`, ` +
        '`version` (unique per product: 400 DATA_EXISTED, refused before the file is read when the fields come ' +
        'first), optional `description` and `sha256` (422 when the bytes ' +
        'do not match it). The SHA-256 and size are computed as the bytes arrive; the package is listed only once ' +
        'its file is whole. Over the limit: 413.',
      response: Firmware,
      status: 201,
      errors: [413],
      rawBody: {
        contentType: 'multipart/form-data',
        description: 'the fields above, `file` a file part',
        schema: FirmwareUpload,
      },
    },
    async (c) => {
      const upload = await readUpload(c, {
        fileField: 'file',
        maxBytes: maxBytes,
        // a form that names its product and version before the file is checked before the bytes arrive
        receive: async (stream, before) => {
          await firmware.precheck(actorOf(c), before)
          return firmware.receive(stream, maxBytes + 1)
        },
      })
      if (upload.truncated) {
        if (upload.file) await firmware.discard(upload.file)
        throw new ApiError('PAYLOAD_TOO_LARGE', {
          file: `at most ${maxBytes} bytes`,
        })
      }
      const created = await firmware.upload(actorOf(c), upload.fields, upload.file)
      return c.json(firmwareWire.detail(created, wireCtx(c)), 201)
    },
  )
}

/** The bytes of a download: a part of a package's file (`end` < `start` for an empty one). */
interface Part {
  path: string
  start: number
  end: number
  /** The same bytes as a stream (app.fetch outside a Node server, in tests). */
  stream: () => Readable
}

/**
 * Answers `part` with `status` and `headers`. On a Node server the file goes to the socket through the download
 * gate (src/http/download-gate.ts: pooled buffers, a bounded share of each turn of the event loop), with the headers
 * every answer carries; elsewhere as a web stream.
 */
function sendFile(
  c: Context<AppEnv>,
  status: 200 | 206,
  headers: Record<string, string>,
  part: Part,
) {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing
  if (!outgoing)
    return c.body(Readable.toWeb(part.stream()) as ReadableStream<Uint8Array>, status, headers)
  outgoing.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'X-Request-Id': c.get('requestId'),
  })
  // a device gone mid-download: the send stops at its next write, and the socket is gone already
  gate.send(part.path, part.start, part.end, outgoing).catch(() => outgoing.destroy())
  // the adapter's own marker, with this answer's status for the access log; reading `body` makes the adapter's
  // light Response a whole one, which it checks for the marker (a light one it would write out itself)
  const sent = new Response(null, { status, headers: ALREADY_SENT })
  void sent.body
  return sent
}

/** `GET /ingest/firmware/{firmwareID}`: a device's download, whole or by Range. */
function downloadRoute(r: Router, firmware: FirmwareService, ingest: HttpIngest) {
  r.route(
    {
      method: 'get',
      path: '/ingest/firmware/:firmwareID',
      tag,
      summary:
        "A device downloads a package of its product (Range: resumable; ETag: the package's SHA-256)",
      description:
        'Authorization: Basic base64(deviceUsername:token) of the device. `Range: bytes=<from>-[<to>]` answers 206 ' +
        'with that part; a range past the end 416. A package of another product or tenant: 404.',
      public: true,
      errors: [401, 403, 416],
    },
    // untyped: the package's bytes, streamed
    async (c, { params }) => {
      const sender = await ingestSender(c, ingest)
      if (sender.kind !== 'device')
        throw new ApiError('PERMISSION_DENIED', { authorization: 'device credentials required' })
      const f = await firmware.forDevice(sender.device, params.firmwareID!)
      const headers: Record<string, string> = {
        'content-type': 'application/octet-stream',
        'accept-ranges': 'bytes',
        etag: `"${f.sha256}"`,
      }
      const range = byteRange(c.req.header('range'), f.size)
      if (range === 'unsatisfiable')
        return c.body(null, 416, { ...headers, 'content-range': `bytes */${f.size}` })
      const { start, end } = range === 'all' ? { start: 0, end: f.size - 1 } : range
      headers['content-length'] = String(f.size === 0 ? 0 : end - start + 1)
      if (range !== 'all') headers['content-range'] = `bytes ${start}-${end}/${f.size}`
      return sendFile(c, range === 'all' ? 200 : 206, headers, {
        path: firmware.path(f.file),
        start,
        end,
        stream: () => (f.size === 0 ? Readable.from([]) : firmware.read(f.file, start, end)),
      })
    },
  )
}
