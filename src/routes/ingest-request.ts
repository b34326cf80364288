import { gunzip } from 'node:zlib'
import { promisify } from 'node:util'
import type { Context } from 'hono'
import type { AppEnv } from '../http/env.ts'
import { bodyBytes } from '../http/body.ts'
import { ApiError } from '../errors.ts'
import { issuesToErrors } from '../errors.ts'
import { IngestMessage, MAX_INGEST_MESSAGES } from '../schemas/ingest.ts'
import type { HttpIngest, IngestSender } from '../../ingest/types.ts'

const gunzipAsync = promisify(gunzip) as (
  buf: Buffer,
  opts: { maxOutputLength: number },
) => Promise<Buffer>

/** One message of the body: parsed, or why not. */
export type ParsedMessage =
  { ok: true; message: IngestMessage } | { ok: false; errorCode: string; message: string }

/**
 * Device credentials `Basic base64(deviceUsername:token)`, checked by HTTP ingest (`login`), or the API caller
 * the auth middleware found. A certificate device (authType 2) authenticates with its client certificate only,
 * which HTTP does not carry: its token is refused (401) like a wrong one. Blocked → 403.
 */
export async function ingestSender(c: Context<AppEnv>, ingest: HttpIngest): Promise<IngestSender> {
  const caller = c.get('caller')
  if (caller) {
    if (caller.role === 'viewer')
      throw new ApiError('PERMISSION_DENIED', { role: 'viewers may only read' })
    return { kind: 'caller', tenantID: caller.tenantID }
  }
  const header = c.req.header('authorization') ?? ''
  const fail = () =>
    new ApiError('AUTH_FAILED', { authorization: 'invalid device or API credentials' })
  if (!/^basic /i.test(header)) throw fail()
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 1) throw fail()
  const verdict = await ingest.login(decoded.slice(0, colon), decoded.slice(colon + 1))
  if (verdict.ok) return { kind: 'device', device: verdict.device }
  if (verdict.reason === 'blocked')
    throw new ApiError('PERMISSION_DENIED', { authorization: 'the device is blocked' })
  throw fail()
}

/** The request body as bytes, gunzipped when `Content-Encoding: gzip` (413 when it inflates past `limit`). */
export async function ingestBytes(c: Context<AppEnv>, limit: number): Promise<Buffer> {
  const raw = await bodyBytes(c)
  const encoding = (c.req.header('content-encoding') ?? '').trim().toLowerCase()
  if (encoding === '' || encoding === 'identity') return raw
  if (encoding !== 'gzip' && encoding !== 'x-gzip')
    throw new ApiError('BAD_REQUEST', { 'content-encoding': 'only gzip is supported' })
  try {
    return await gunzipAsync(raw, { maxOutputLength: limit })
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new ApiError('PAYLOAD_TOO_LARGE', {
        body: `at most ${limit} bytes after decompression`,
      })
    throw new ApiError('BAD_REQUEST', { body: 'not valid gzip' })
  }
}

function checkMessage(v: unknown): ParsedMessage {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return {
      ok: false,
      errorCode: 'BAD_REQUEST',
      message: 'a message must be a JSON object {deviceID?, topic, payload}',
    }
  const r = IngestMessage.safeParse(v)
  if (r.success) return { ok: true, message: r.data }
  const errors = issuesToErrors(r.error.issues)
  return {
    ok: false,
    errorCode: 'FORM_INVALID',
    message: Object.entries(errors)
      .map(([k, m]) => `${k}: ${m}`)
      .join('; '),
  }
}

function tooMany(n: number) {
  if (n > MAX_INGEST_MESSAGES)
    throw new ApiError('FORM_INVALID', {
      messages: `at most ${MAX_INGEST_MESSAGES} messages, got ${n}`,
    })
}

/**
 * The messages of a body: NDJSON (one message per non-empty line; a bad line is that message's rejection),
 * `{"messages": [...]}`, or one message. A body that is not JSON (or not an object) is 400 BAD_REQUEST.
 */
export function ingestMessages(text: string, contentType: string): ParsedMessage[] {
  if (/ndjson|jsonl|json-seq/i.test(contentType)) {
    const lines = text.split('\n').filter((l) => l.trim() !== '')
    tooMany(lines.length)
    return lines.map((line) => {
      try {
        return checkMessage(JSON.parse(line))
      } catch {
        return { ok: false, errorCode: 'BAD_REQUEST', message: 'the line is not valid JSON' }
      }
    })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ApiError('BAD_REQUEST', { body: 'not valid JSON' })
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ApiError('BAD_REQUEST', { body: 'must be a JSON object' })
  if (!('messages' in json)) return [checkMessage(json)]
  const list = json.messages
  if (!Array.isArray(list))
    throw new ApiError('FORM_INVALID', { messages: 'must be an array of messages' })
  tooMany(list.length)
  return list.map(checkMessage)
}
