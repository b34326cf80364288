/**
 * The parts of the OpenAPI 3.1 document (`GET /api/v1/openapi.json`, src/openapi.ts) the openapi tests read, typed
 * so they read them as the document has them. src/openapi.ts builds it as plain JSON: nothing there to infer from.
 */

/** A JSON Schema (draft 2020-12) as zod writes it; every keyword optional, as in the document. */
export interface Schema {
  type?: string
  description?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  allOf?: Schema[]
  enum?: unknown[]
  'x-enumNames'?: string[]
  pattern?: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  minLength?: number
  maxItems?: number
  examples?: unknown[]
  $ref?: string
}

/** A media type of a body or an answer; a raw body without a JSON form has no schema. */
export interface Media {
  schema?: Schema
  example?: unknown
}

export interface Parameter {
  name: string
  in: string
  required?: boolean
  schema: Schema
}

export interface Operation {
  summary?: string
  description?: string
  tags: string[]
  parameters: Parameter[]
  requestBody?: { required: boolean; description?: string; content: Record<string, Media> }
  responses: Record<string, { description: string; content?: Record<string, Media> }>
  /** Only a public operation has one (empty). */
  security?: unknown[]
}

/** A type, not an interface: buildOpenApi answers `Record<string, unknown>`, which an interface does not overlap. */
export type OpenApi = {
  openapi: string
  info: { title: string; version: string; description: string }
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Schema> }
}

/** The operation `method` of `path` (as documented: `/api/v1/...` with `{id}`); a test reading one not there fails. */
export function operationOf(doc: OpenApi, path: string, method: string): Operation {
  const op = doc.paths[path]?.[method]
  if (!op) throw new Error(`${method} ${path} is not in the document`)
  return op
}

/** Every operation of a document, with its method and path. */
export const operations = (doc: OpenApi) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, op })),
  )
