/**
 * The list request and page types every store port shares (and the metadata repositories of store/meta/
 * import). A leaf: it imports nothing, so store/meta/*.ts never import store/types.ts, which re-exports them.
 */

export type FieldType = 'int' | 'text' | 'real'

/** One list filter: `field` is a wire field name, resolved to SQL by the store's list spec. */
export interface Filter {
  field: string
  op: 'eq' | 'like' | 'in'
  value: string | number | Array<string | number>
}

/**
 * A position in a list (keyset paging): the sort value (null sorts first ascending, last descending) and id of the
 * last record of a page, so the next page starts right after it whatever its depth.
 */
export interface Cursor {
  v: string | number | null
  id: number
}

/** A page request as the HTTP layer validated it. */
export interface ListArgs {
  page: number
  limit: number
  /** Start after this position instead of at `(page - 1) * limit` (the same sort, order and filters). */
  after?: Cursor
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
  /** Where the page after this one starts; null on the last page; absent when the list has no cursors. */
  next?: Cursor | null
}

/**
 * A JSON text, or its UTF-8 bytes: a large one written by a reader thread crosses to the main thread as bytes,
 * which move between threads without a copy and go to the socket without being encoded again.
 */
export type JsonText = string | Uint8Array<ArrayBuffer>

/** A Page whose items are one JSON text: the array of their wire forms, written where they were read. */
export interface TextPage extends Omit<Page, 'items'> {
  items: JsonText
}
