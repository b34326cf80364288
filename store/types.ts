/**
 * Ports of the stores. The service's handlers, ingest and query talk only to these interfaces;
 * store/libsql and store/influx implement them, and src/main.ts picks them (createStores).
 */

export type FieldType = 'int' | 'text' | 'real'

/** One list filter: `field` is a wire field name, resolved to SQL by the store's list spec. */
export interface Filter {
  field: string
  op: 'eq' | 'like' | 'in'
  value: string | number | Array<string | number>
}

/** A page request as the HTTP layer validated it. */
export interface ListArgs {
  page: number
  limit: number
  sort?: string
  order?: 'asc' | 'desc'
  filters: Filter[]
  /** Inclusive bounds of the list's time field (logs: msgTime; alerts: createAt), epoch milliseconds. */
  startTime?: number
  endTime?: number
}

/** A stored record with its wire field names (camelCase), times as epoch milliseconds. */
export type Row = Record<string, unknown>

export interface Page<T = Row> {
  items: T[]
  count: number
}

export * from './metadata.ts'
