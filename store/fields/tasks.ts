/**
 * Asynchronous tasks, declared once: store/libsql/tasks.ts selects, filters and sorts them from these tables and
 * answers their records (`RecordOf`).
 */
import { int, str, times } from './table.ts'
import type { FieldTable, RecordOf } from './table.ts'

/** What a task's status tells (`t`): state, progress and message. */
const status = {
  taskID: { sql: 't.task_id', read: str },
  /** Enumeration `taskStatus` (TaskState). */
  status: { sql: 't.status', read: int, label: 'taskStatus', filter: 'int' },
  /** 0 to 100. */
  progress: { sql: 't.progress', read: int },
  message: { sql: 't.message', read: str.nullable() },
} as const satisfies FieldTable

/** The status of one task, the resource a statusUrl points at, with its result (JSON text, null until done). */
export const TASK_STATUS_TABLE = {
  ...status,
  result: { sql: 't.result', read: str.nullable(), json: true },
} as const satisfies FieldTable

export type TaskStatusRecord = RecordOf<typeof TASK_STATUS_TABLE>

/** A task in the tenant's list: what it is and when, without its result. */
export const TASK_TABLE = {
  ...status,
  taskName: { sql: 't.task_name', read: str, filter: 'text' },
  ...times('t'),
} as const satisfies FieldTable

export type TaskRecord = RecordOf<typeof TASK_TABLE>
