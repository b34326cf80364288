/** RFC 4180 CSV: a writer for exports and a parser for imports (UTF-8, header row of field names). */

const NEEDS_QUOTES = /[",\r\n]/

/**
 * Text a spreadsheet would run as a formula: it starts with `=`, `+`, `-`, `@`, a tab or a carriage return
 * (after any single quotes already there, so that stripping one quote on import gives the text back).
 */
const FORMULA_START = /^'*[=+\-@\t\r]/

/** Text made inert for spreadsheets: formula-like text gets a leading single quote (numbers stay as they are). */
export function neutralise(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text
}

/** The inverse of neutralise on an imported cell: one leading quote before formula-like text is dropped. */
export function unneutralise(text: string): string {
  return text.startsWith("'") && FORMULA_START.test(text) ? text.slice(1) : text
}

/**
 * One CSV cell: null/undefined → empty, objects → JSON, text neutralised against formula injection, quoted when
 * needed.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text =
    typeof value === 'object'
      ? JSON.stringify(value)
      : typeof value === 'number' || typeof value === 'bigint'
        ? String(value)
        : // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar here: objects went to JSON
          neutralise(String(value))
  return NEEDS_QUOTES.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text
}

/** One CSV line with CRLF, as RFC 4180 writes it. */
export const csvLine = (cells: readonly unknown[]) => `${cells.map(csvCell).join(',')}\r\n`

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`)
  }
}

/**
 * Parses CSV text into rows of cells. Handles quoted cells with commas, quotes and line breaks, CRLF or LF,
 * a UTF-8 BOM, and a missing final line break. Throws CsvError on an unterminated quote.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  let line = 1
  let startLine = 1
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  for (; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"'
          i++
        } else quoted = false
      } else {
        if (ch === '\n') line++
        cell += ch
      }
    } else if (ch === '"' && cell === '') {
      quoted = true
      startLine = line
    } else if (ch === ',') {
      row.push(cell)
      cell = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      line++
    } else cell += ch
  }
  if (quoted) throw new CsvError(startLine, 'unterminated quoted cell')
  if (cell !== '' || row.length) {
    row.push(cell)
    rows.push(row)
  }
  return rows.filter((r) => r.length > 1 || r[0] !== '')
}

/** CSV with a header row → objects keyed by the header's field names (empty cells are absent). */
export function parseCsvRecords(text: string): {
  header: string[]
  records: Array<Record<string, string>>
} {
  const [header = [], ...rows] = parseCsv(text)
  const names = header.map((h) => h.trim())
  const records = rows.map((cells) => {
    const rec: Record<string, string> = {}
    names.forEach((name, j) => {
      const v = cells[j]
      if (name && v !== undefined && v !== '') rec[name] = v
    })
    return rec
  })
  return { header: names, records }
}
