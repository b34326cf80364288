/**
 * A SELECT's result columns as the expressions they are, so that a read that writes its rows as JSON text
 * (store/libsql/db.ts: the learnt `json_object` form and projected reads) can compute that text in the same SELECT
 * instead of over a subquery of it. Over a subquery SQLite first builds every column of every row (and through
 * an ORDER BY sorts all of them): a device list page of 11 rows x 50 columns took 72 µs wrapped and 61 flattened.
 *
 * Only a plain statement is flattened, and only when doing so cannot change what it answers: SELECT (not
 * DISTINCT, not compound, no GROUP BY, HAVING or WINDOW), every result column a column reference or a literal with
 * its alias (`d.device_name AS deviceName`, or a bare `id`), no `?` among them (the arguments keep their places),
 * no alias named again after FROM (an ORDER BY by alias would lose it) and no ORDER BY by position. Anything else
 * answers undefined and is read wrapped, as before. Only this code's SQL reaches here, never input.
 */
export interface FlatSelect {
  /** Each result column's expression by its name, in order. */
  columns: Map<string, string>
  /** The statement after its result columns: from its `FROM` to the end. */
  from: string
}

const COLUMN_REF = /^(?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*$/
const LITERAL = /^(?:NULL|-?\d+(?:\.\d+)?|'(?:[^']|'')*')$/i
const ITEM = /^([\s\S]*?\S)\s+AS\s+("?)([A-Za-z_]\w*)\2$/i
const BARE = /^[A-Za-z_]\w*$/

/** `sql`'s result columns and the rest, or undefined when it is not a statement to flatten (see above). */
export function flatSelect(sql: string): FlatSelect | undefined {
  const head = /^\s*SELECT\s+/i.exec(sql)
  if (!head || /^(DISTINCT|ALL)\b/i.test(sql.slice(head[0].length))) return undefined
  const top = topLevel(sql, head[0].length)
  if (!top) return undefined
  const { items, fromAt, outer } = top
  if (fromAt < 0) return undefined
  const columns = new Map<string, string>()
  for (const raw of items) {
    const item = raw.trim()
    const m = ITEM.exec(item)
    const [expr, name] = m ? [m[1]!.trim(), m[3]!] : BARE.test(item) ? [item, item] : []
    if (!expr || !name || columns.has(name)) return undefined
    if (!COLUMN_REF.test(expr) && !LITERAL.test(expr)) return undefined
    columns.set(name, expr)
  }
  const from = sql.slice(fromAt).trimStart()
  if (/\b(UNION|INTERSECT|EXCEPT|GROUP|HAVING|WINDOW)\b/i.test(outer)) return undefined
  const order = /\bORDER\s+BY\b([\s\S]*?)(?:\bLIMIT\b|$)/i.exec(outer)
  if (order && order[1]!.split(',').some((t) => /^\s*\d/.test(t))) return undefined
  for (const name of columns.keys())
    if (new RegExp(`(?<![\\w.$])"?${name}(?![\\w$])`, 'i').test(from)) return undefined
  return { columns, from }
}

/**
 * From `start` (just after SELECT): the result columns (split at top-level commas), where the top-level FROM starts
 * (-1: none), and the text after it at the top level (parenthesized parts and literals blanked). Undefined for a
 * comment, an unclosed quote or unbalanced parentheses.
 */
function topLevel(sql: string, start: number) {
  const items: string[] = []
  let depth = 0
  let itemStart = start
  let fromAt = -1
  let outer = ''
  for (let i = start; i < sql.length; i++) {
    const ch = sql[i]!
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = sql.indexOf(ch === '[' ? ']' : ch, i + 1)
      if (close < 0) return undefined
      if (fromAt >= 0 && depth === 0) outer += ' '
      i = close
      continue
    }
    if ((ch === '-' && sql[i + 1] === '-') || (ch === '/' && sql[i + 1] === '*')) return undefined
    if (ch === '(') depth++
    else if (ch === ')' && --depth < 0) return undefined
    else if (depth === 0 && fromAt < 0) {
      if (ch === ',') {
        items.push(sql.slice(itemStart, i))
        itemStart = i + 1
      } else if (/\s/.test(ch) && /^\s+FROM\b/i.test(sql.slice(i, i + 12))) {
        items.push(sql.slice(itemStart, i))
        fromAt = i
      }
    }
    if (fromAt >= 0 && depth === 0 && ch !== ')') outer += ch
  }
  return depth === 0 ? { items, fromAt, outer } : undefined
}
