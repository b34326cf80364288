import { z } from 'zod'
import { enumDoc, enumerations, type EnumName } from './enums.ts'
import type { RouteDef } from './http/router.ts'
import { DEVICES_AND_MQTT } from './schemas/device-payloads.ts'
import { DEVICE_STATE } from './schemas/state.ts'

type Json = Record<string, unknown>

const ErrorBody = z.object({
  errorCode: z.string(),
  message: z.string(),
  errors: z.record(z.string(), z.string()),
})

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json
  return rest
}

type Variant = 'A' | 'B'

/**
 * The enumeration of a field by its name (src/enums.ts), for the fields the schemas type as plain integers
 * (answers, filters): `cloudProtocol` → cloudProtocol; Variant B's `deviceType`, and its connection logs'
 * `deviceStatus`, have their own codes.
 */
function enumOfField(field: string, variant: Variant, path: string): EnumName | undefined {
  if (variant === 'B' && field === 'deviceType') return 'deviceTypeVariantB'
  if (variant === 'B' && field === 'deviceStatus' && path.includes('connect_logs'))
    return 'connectStatus'
  return field in enumerations ? (field as EnumName) : undefined
}

/** `schema` with the meanings of `name`'s codes, on the non-null member when it is nullable. */
function withMeanings(schema: Json, name: EnumName): Json {
  if (schema.description !== undefined) return schema
  const members = schema.anyOf as Json[] | undefined
  if (members) {
    const i = members.findIndex((m) => m.type !== 'null')
    if (i < 0 || members[i]!.description !== undefined) return schema
    return { ...schema, anyOf: members.map((m, j) => (j === i ? { ...m, ...enumDoc(name) } : m)) }
  }
  if (schema.type === 'object' || schema.type === 'array') return schema
  return { ...schema, ...enumDoc(name) }
}

/**
 * Gives every property named after an enumeration the meanings of its codes (request fields have them from
 * enumCode already; answers type them as plain integers). Copies what it changes: zod may share sub-schemas.
 */
function annotateEnums(schema: unknown, variant: Variant, path: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => annotateEnums(s, variant, path))
  if (!schema || typeof schema !== 'object') return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Json>).map(([field, s]) => {
          const name = enumOfField(field, variant, path)
          const annotated = annotateEnums(s, variant, path) as Json
          return [field, name ? withMeanings(annotated, name) : annotated]
        }),
      )
    } else if (key === 'examples' || key === 'example' || key === 'enum' || key === 'const') {
      out[key] = value
    } else out[key] = annotateEnums(value, variant, path)
  }
  return out
}

function queryParameters(schema: z.ZodType, variant: Variant, path: string): Json[] {
  const js = jsonSchema(schema, 'input')
  const props = (js.properties ?? {}) as Record<string, Json>
  const required = new Set((js.required ?? []) as string[])
  return Object.entries(props).map(([name, s]) => {
    const code = enumOfField(name, variant, path)
    return {
      name,
      in: 'query',
      required: required.has(name),
      schema: code ? withMeanings(s, code) : s,
    }
  })
}

const ERROR_TEXT: Record<number, string> = {
  400: 'BAD_REQUEST (body not a JSON object), PARAMETER_INVALID, DATA_EXISTED or REFERENCED_ERROR',
  401: 'AUTH_FAILED: missing or bad credentials',
  403: 'PERMISSION_DENIED: the role (or the device) may not do this',
  404: 'DATA_NOT_FOUND: no such record in the tenant (path id, `ids` or an id in the body)',
  413: 'PAYLOAD_TOO_LARGE: the body is over the limit',
  422: 'FORM_INVALID: `errors` names every failing field',
  429: 'TOO_MANY_REQUESTS: try again after `Retry-After` seconds',
  503: 'SERVICE_UNAVAILABLE: a store is unreachable; try again after `Retry-After` seconds',
  507: 'INSUFFICIENT_STORAGE: the disk under DATA_DIR is below DISK_MIN_FREE_MB; nothing new is stored until space is freed',
}

const errorResponse = (status: number) => ({
  description: ERROR_TEXT[status] ?? 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
})

/**
 * The error statuses an operation can answer, from its definition: 400 (query, body or a rule), 401 and 403
 * behind auth, 404 with a path id, `ids` or a body naming records, 413 with a body, 422 on writes, 503 when a
 * store is down, and the route's own `errors` (e.g. 429).
 */
export function errorStatuses(def: RouteDef): number[] {
  const body = !!(def.body || def.rawBody)
  const out = new Set([400, 503, ...(def.errors ?? [])])
  if (!def.public) [401, 403].forEach((s) => out.add(s))
  if (def.path.includes(':') || body || def.method === 'delete') out.add(404)
  if (body) out.add(413)
  if (def.method !== 'get') out.add(422)
  return [...out].sort((a, b) => a - b)
}

function success(def: RouteDef, variant: Variant): Json {
  const content: Json = {}
  if (def.response)
    content['application/json'] = {
      schema: annotateEnums(jsonSchema(def.response, 'output'), variant, def.path),
    }
  for (const type of Object.keys(def.produces ?? {})) content[type] = { schema: { type: 'string' } }
  if (!Object.keys(content).length) return { description: 'No content' }
  const notes = Object.entries(def.produces ?? {}).map(([type, what]) => `${type}: ${what}`)
  return { description: ['OK', ...notes].join('. '), content }
}

/**
 * A JSON body's media type: its schema, and the schema's first example as the operation's `example`. The examples
 * are read from the schema's metadata: zod leaves them out of the input form of a schema that transforms.
 */
function jsonContent(schema: z.ZodType): Json {
  const js = jsonSchema(schema, 'input')
  const examples = z.globalRegistry.get(schema)?.examples as unknown[] | undefined
  if (!examples?.length) return { schema: js }
  return { schema: { ...js, examples }, example: examples[0] }
}

function requestBody(def: RouteDef): Json | undefined {
  if (def.body) return { required: true, content: { 'application/json': jsonContent(def.body) } }
  if (!def.rawBody) return undefined
  const { contentType, description, schema, alternatives } = def.rawBody
  const content: Json = { [contentType]: schema ? jsonContent(schema) : {} }
  for (const type of Object.keys(alternatives ?? {})) content[type] = { schema: { type: 'string' } }
  const notes = Object.entries(alternatives ?? {}).map(([type, what]) => `${type}: ${what}`)
  return { required: true, description: [description, ...notes].join('. '), content }
}

function operation(def: RouteDef, variant: Variant): Json {
  const pathParams = [...def.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: m[1] === 'id' ? 'integer' : 'string' },
  }))
  const responses: Json = { [String(def.status ?? 200)]: success(def, variant) }
  for (const status of errorStatuses(def)) responses[status] = errorResponse(status)
  const op: Json = {
    operationId: `${def.method}${def.path.replace(/[/:](\w)/g, (_, ch: string) => ch.toUpperCase()).replace(/\W/g, '')}`,
    summary: def.summary,
    tags: [def.tag],
    parameters: [
      ...pathParams,
      ...(def.query ? queryParameters(def.query, variant, def.path) : []),
    ],
    responses,
  }
  if (def.description) op.description = def.description
  if (def.public) op.security = []
  const body = requestBody(def)
  if (body) op.requestBody = body
  return op
}

/** The OpenAPI 3.1 document of every route, built from the zod schemas that validate them. */
export function buildOpenApi(
  defs: readonly RouteDef[],
  version: string,
  variant: 'A' | 'B' = 'A',
): Json {
  const paths: Record<string, Json> = {}
  for (const def of defs) {
    const path = `/api/v1${def.path.replace(/:(\w+)/g, '{$1}')}`
    paths[path] ??= {}
    paths[path][def.method] = operation(def, variant)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'DeviceCloud API',
      version,
      description: [
        'IoT device management and telemetry. Lists take _page, _limit (max 1000), _sort, _order and field filters; errors are {errorCode, message, errors}.' +
          ` API shape: Variant ${variant} (API_VARIANT). Every field holding codes lists their meanings; every create has an example.`,
        DEVICES_AND_MQTT,
        DEVICE_STATE,
      ].join('\n\n'),
      'x-api-variant': variant,
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { application: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'token from POST /api/v1/login',
        },
        application: {
          type: 'http',
          scheme: 'basic',
          description: 'appID:appToken of an application',
        },
      },
      schemas: { Error: jsonSchema(ErrorBody, 'output') },
    },
    tags: [...new Set(defs.map((d) => d.tag))].map((name) => ({ name })),
    paths,
  }
}

// eslint-disable-next-line @typescript-eslint/no-base-to-string -- descriptions and examples are text
const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

function typeOf(s: Json | undefined): string {
  if (!s) return ''
  if (s.enum) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ')
  if (s.anyOf) return (s.anyOf as Json[]).map(typeOf).join(' | ')
  if (s.type === 'array') return `${typeOf(s.items as Json)}[]`
  return String((s.type as string | undefined) ?? 'any')
}

/** A schema's description, or its non-null member's when it is nullable. */
function noteOf(s: Json | undefined): string {
  if (!s) return ''
  if (s.description !== undefined) return s.description as string
  const member = (s.anyOf as Json[] | undefined)?.find((m) => m.description !== undefined)
  return member ? (member.description as string) : ''
}

/** Markdown-lite of descriptions: `code` spans, `## ` headings, paragraphs and line breaks. */
function prose(text: unknown): string {
  const inline = (t: string) => esc(t).replace(/`([^`]+)`/g, '<code>$1</code>')
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a description is text
  return String(text ?? '')
    .split(/\n\n+/)
    .map((para) =>
      para.startsWith('## ')
        ? `<h2>${inline(para.slice(3))}</h2>`
        : `<p>${para.split('\n').map(inline).join('<br>')}</p>`,
    )
    .join('\n')
}

function fieldsTable(schema: Json | undefined): string {
  const props = (schema?.properties ?? (schema?.properties as undefined)) as
    Record<string, Json> | undefined
  if (!props) return schema ? `<p><code>${esc(typeOf(schema))}</code></p>` : ''
  const req = new Set((schema?.required ?? []) as string[])
  const rows = Object.entries(props)
    .map(
      ([k, v]) =>
        `<tr><td><code>${esc(k)}</code>${req.has(k) ? ' *' : ''}</td><td>${esc(typeOf(v))}</td><td>${esc(noteOf(v))}</td></tr>`,
    )
    .join('')
  return `<table><tr><th>field</th><th>type</th><th>notes</th></tr>${rows}</table>`
}

const example = (media: Json | undefined) =>
  media && 'example' in media
    ? `<h4>Example</h4><pre>${esc(JSON.stringify(media.example, null, 2))}</pre>`
    : ''

/** A readable, self-contained API reference page rendered from the OpenAPI document. */
export function renderDocs(doc: Json): string {
  const paths = doc.paths as Record<string, Record<string, Json>>
  const byTag = new Map<string, string[]>()
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters as Json[]).filter((p) => !String(p.name).match(/_(like|in)$/))
      const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
      const ok = Object.entries(op.responses as Record<string, Json>)[0]!
      const okSchema = (ok[1].content as Record<string, Json> | undefined)?.['application/json']
        ?.schema as Json | undefined
      const json = body?.['application/json']
      const bodyNote = noteOf(json?.schema as Json | undefined)
      const html = `<section><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary)}</p>${op.description ? prose(op.description) : ''}
${params.length ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th>notes</th></tr>${params.map((p) => `<tr><td><code>${esc(p.name)}</code>${p.required ? ' *' : ''}</td><td>${esc(p.in)}</td><td>${esc(typeOf(p.schema as Json))}</td><td>${esc(noteOf(p.schema as Json))}</td></tr>`).join('')}</table>` : ''}
${json ? `<h4>Body</h4>${bodyNote ? prose(bodyNote) : ''}${fieldsTable(json.schema as Json)}${example(json)}` : ''}
<h4>Response ${esc(ok[0])}</h4>${fieldsTable(okSchema) || '<p>empty body</p>'}</section>`
      const tag = (op.tags as string[])[0]!
      byTag.set(tag, [...(byTag.get(tag) ?? []), html])
    }
  }
  const nav = [...byTag.keys()].map((t) => `<a href="#${esc(t)}">${esc(t)}</a>`).join(' · ')
  const body = [...byTag.entries()]
    .map(([t, ops]) => `<h2 id="${esc(t)}">${esc(t)}</h2>${ops.join('\n')}`)
    .join('\n')
  const info = doc.info as Json
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(info.title)}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:1100px;margin:auto;padding:1em}code{background:#f3f3f3;padding:0 .2em}
table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}
section{border-top:1px solid #eee;padding:.3em 0}pre{background:#f6f6f6;padding:.4em;overflow-x:auto}.m{font-weight:bold;padding:0 .4em;color:#fff;border-radius:3px}
.get{background:#2b7}.post{background:#27b}.put{background:#b82}.patch{background:#838}.delete{background:#c33}</style></head>
<body><h1>${esc(info.title)} ${esc(info.version)}</h1>${prose(info.description)}
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p><nav>${nav}</nav>${body}</body></html>`
}
