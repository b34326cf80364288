import { LibsqlBatchError, LibsqlError } from '@libsql/client/sqlite3'
import { Conflict, Referenced, StoreError, Unavailable } from '../../errors.ts'
import { storeErrorOf } from '../sql-errors.ts'
import { WindowError } from '../../windows.ts'
import type { WireCause, WireError } from './protocol.ts'

type DriverFields = {
  name?: unknown
  message?: unknown
  code?: unknown
  extendedCode?: unknown
  rawCode?: unknown
  cause?: unknown
  statementIndex?: unknown
}

function fieldsOf(e: unknown): WireCause {
  const d = (e !== null && typeof e === 'object' ? e : {}) as DriverFields
  return {
    name: typeof d.name === 'string' ? d.name : 'Error',
    message: typeof d.message === 'string' ? d.message : String(e),
    ...(typeof d.code === 'string' ? { code: d.code } : {}),
    ...(typeof d.extendedCode === 'string' ? { extendedCode: d.extendedCode } : {}),
    ...(typeof d.rawCode === 'number' ? { rawCode: d.rawCode } : {}),
    ...(d.cause instanceof Error ? { detail: d.cause.message } : {}),
    ...(typeof d.statementIndex === 'number' ? { statementIndex: d.statementIndex } : {}),
  }
}

/** In a worker: a driver error → the store error it means (storeErrorOf) → its wire form. */
export function encodeError(e: unknown): WireError {
  const s = storeErrorOf(e)
  const cause = s instanceof StoreError && s.cause !== undefined ? fieldsOf(s.cause) : undefined
  const kind =
    s instanceof Conflict
      ? 'Conflict'
      : s instanceof Referenced
        ? 'Referenced'
        : s instanceof Unavailable
          ? 'Unavailable'
          : s instanceof WindowError
            ? 'Window'
            : 'Error'
  const errors = s instanceof StoreError ? { ...s.errors } : {}
  return { kind, errors, ...(cause ? { cause } : {}), ...fieldsOf(s) }
}

/** On the receiving thread: the wire form → the error a LocalDb would have thrown (same class and fields). */
export function decodeError(w: WireError): Error {
  const driver = (c: WireCause): Error => {
    const detail = c.detail !== undefined ? new Error(c.detail) : undefined
    if (c.name === 'LibsqlBatchError' && c.code !== undefined)
      return Object.assign(
        new LibsqlBatchError('', c.statementIndex ?? 0, c.code, c.extendedCode, c.rawCode, detail),
        { message: c.message },
      )
    if (c.name === 'LibsqlError' && c.code !== undefined)
      return Object.assign(new LibsqlError('', c.code, c.extendedCode, c.rawCode, detail), {
        message: c.message,
      })
    return Object.assign(new Error(c.message, detail ? { cause: detail } : {}), {
      name: c.name,
      ...(c.code !== undefined ? { code: c.code } : {}),
      ...(c.extendedCode !== undefined ? { extendedCode: c.extendedCode } : {}),
      ...(c.rawCode !== undefined ? { rawCode: c.rawCode } : {}),
    })
  }
  const cause = w.cause ? { cause: driver(w.cause) } : {}
  switch (w.kind) {
    case 'Conflict':
      return Object.assign(new Conflict(w.errors), cause)
    case 'Referenced':
      return Object.assign(new Referenced(w.errors), cause)
    case 'Unavailable':
      return Object.assign(new Unavailable(w.message), cause)
    case 'Window':
      return new WindowError(w.message)
    default:
      return driver({ ...w, name: w.name ?? 'Error' })
  }
}
