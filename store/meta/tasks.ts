import type { ListArgs, Page } from '../list.ts'
import type { TaskRecord, TaskStatusRecord } from '../fields/tasks.ts'

export type { TaskRecord, TaskStatusRecord } from '../fields/tasks.ts'

/** Task states (enumeration `taskStatus`). */
export const TaskState = { waiting: 1, running: 2, done: 3, failed: 4 } as const

/** The message of a task that was waiting or running when its process stopped. */
export const INTERRUPTED = 'interrupted by a restart'

/** A file a task produced (e.g. the CSV of an export). */
export interface TaskFile {
  name: string
  contentType: string
  content: string
  /** Whether it holds credentials (device tokens): only callers who may read secrets download it. Default true. */
  secrets?: boolean
}

/** Asynchronous tasks of a tenant and their progress; src/tasks.ts runs them. */
export interface TaskRepository {
  /** Records a new waiting task and returns its taskID (a UUID). */
  create(tenant: string, userIntID: number | null, taskName: string): Promise<string>
  /** The status of one task of the tenant ({taskID, status, progress, message, result}); NotFound('taskID'). */
  get(tenant: string, taskID: string): Promise<TaskStatusRecord>
  /** A page of the tenant's tasks, newest first by default. */
  list(tenant: string, q: ListArgs): Promise<Page<TaskRecord>>
  /** waiting → running. */
  markRunning(taskID: string): Promise<void>
  /** Progress (0..100) and an optional message of a waiting or running task. */
  report(
    taskID: string,
    progress: number,
    message: string | null,
    resultJson?: string,
  ): Promise<void>
  /** → done, progress 100, with the JSON text of the result. */
  finish(taskID: string, resultJson: string): Promise<void>
  /** → failed, with a message for the caller. */
  fail(taskID: string, message: string): Promise<void>
  /**
   * Keeps a file a task produced, replacing an earlier one of the same task; only the tenant's `keep` newest
   * files stay (default: all).
   */
  putFile(tenant: string, taskID: string, file: TaskFile, keep?: number): Promise<void>
  /** How many tasks of this name the tenant has waiting or running. */
  countActive(tenant: string, taskName: string): Promise<number>
  /** The file of a task of the tenant; NotFound('taskID') otherwise. */
  getFile(tenant: string, taskID: string): Promise<TaskFile>
  /**
   * Marks every task still waiting or running as failed (INTERRUPTED): call once at start-up, before any task
   * runs, since a task lives only in the process that started it. Returns how many it marked.
   */
  failInterruptedTasks(exceptNames?: readonly string[]): Promise<number>
}
