/**
 * A small in-process runner of asynchronous tasks. An asynchronous endpoint starts its work here
 * and answers 202 with the `statusUrl` and `taskID`; the caller polls `GET /api/v1/task_status/<taskID>`.
 *
 * ```ts
 * const { statusUrl, taskID } = await tasks.start(tenant, userIntID, 'devices_import', async (report) => {
 *   for (const [i, row] of rows.entries()) {
 *     await importRow(row)
 *     await report((100 * (i + 1)) / rows.length, `row ${i + 1}`)
 *   }
 *   return { success, failed, errors }
 * })
 * return c.json({ statusUrl, taskID }, 202)
 * ```
 *
 * A task lives only in the process that started it: at start-up, call `tasks.failInterruptedTasks()` on the
 * store so that tasks left waiting or running by a stopped process read as failed.
 */
import { fallbackLogger, type Logger } from './kernel/log.ts'
import type { TaskRepository } from '../store/types.ts'

/** What the runner needs of the task store. */
export type TaskStore = Pick<
  TaskRepository,
  'create' | 'markRunning' | 'report' | 'finish' | 'fail'
>

/** Reports progress (0 to 100, clamped and rounded) and optionally a message the caller sees while it runs. */
export type ReportProgress = (progress: number, message?: string) => Promise<void>

/**
 * The work of a task. What it returns (JSON-serializable) becomes the task's `result`; what it throws fails the
 * task, with the error's message (its first line, never a stack) as the task's `message`.
 */
export type TaskWork = (report: ReportProgress) => Promise<unknown>

/** The answer of an asynchronous call: send `{statusUrl, taskID}` with status 202. */
export interface TaskStarted {
  taskID: string
  /** `/task_status/<taskID>`, relative to `/api/v1`. */
  statusUrl: string
}

export interface TaskRunner {
  /**
   * Records a waiting task of `tenant` and runs `work` in the background (status 2 running, then 3 done
   * with the result, or 4 failed with a message). Resolves once the task is recorded, before the work runs.
   */
  start(
    tenant: string,
    userIntID: number | null,
    taskName: string,
    work: TaskWork,
  ): Promise<TaskStarted>
  /** Resolves when no task of this runner is running any more (shutdown, tests). */
  idle(): Promise<void>
  /** How many tasks of this runner are running now. */
  readonly running: number
}

export interface TaskRunnerOptions {
  /**
   * Told about every failed task and every store error while recording an outcome. Default: one line on stderr
   * for errors other than TaskFailure (a TaskFailure is an expected outcome, already in the task's message).
   */
  onError?: (taskID: string, error: unknown) => void
  /** Where the default onError writes (component `tasks`). */
  logger?: Logger
}

/** An error whose message is meant for the caller as it is (other errors are shown by their first line too). */
export class TaskFailure extends Error {}

const logErrorTo = (logger: Logger | undefined) => {
  const log = (logger ?? fallbackLogger()).child({ component: 'tasks' })
  return (taskID: string, e: unknown) => {
    if (!(e instanceof TaskFailure)) log.error({ err: e, taskID }, 'task failed')
  }
}

const MAX_MESSAGE = 500

/** The caller's view of an error: one line, no stack, no driver internals. */
export function publicMessage(e: unknown): string {
  const err = e as { message?: unknown; code?: unknown; name?: unknown } | null
  if (typeof e === 'string') return firstLine(e)
  if (!err || typeof err.message !== 'string') return 'the task failed'
  const driverError =
    /^(SQLITE|LIBSQL)/.test(String((err.code as string | number | undefined) ?? '')) ||
    err.name === 'LibsqlError'
  if (driverError && !(e instanceof TaskFailure)) return 'internal error'
  return firstLine(err.message)
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim()
  return (line || 'the task failed').slice(0, MAX_MESSAGE)
}

const clamp = (p: number) => (Number.isFinite(p) ? Math.max(0, Math.min(100, Math.round(p))) : 0)

/** A runner over the task store (`meta.tasks`). */
export function createTaskRunner(store: TaskStore, opts: TaskRunnerOptions = {}): TaskRunner {
  const inFlight = new Set<Promise<void>>()
  const log = opts.onError ?? logErrorTo(opts.logger)
  const onError = (taskID: string, e: unknown) => {
    try {
      log(taskID, e)
    } catch {
      // a failing logger must not turn into an unhandled rejection
    }
  }

  async function run(taskID: string, work: TaskWork): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve))
    let resultJson: string
    try {
      await store.markRunning(taskID)
      const progress: ReportProgress = (p, message) =>
        store.report(taskID, clamp(p), message ?? null)
      resultJson = JSON.stringify((await work(progress)) ?? null) ?? 'null'
    } catch (e) {
      onError(taskID, e)
      await store.fail(taskID, publicMessage(e)).catch((err: unknown) => onError(taskID, err))
      return
    }
    await store.finish(taskID, resultJson).catch((err: unknown) => onError(taskID, err))
  }

  return {
    async start(tenant, userIntID, taskName, work) {
      const taskID = await store.create(tenant, userIntID, taskName)
      const p = run(taskID, work)
        .catch((e: unknown) => onError(taskID, e))
        .finally(() => inFlight.delete(p))
      inFlight.add(p)
      return { taskID, statusUrl: `/task_status/${taskID}` }
    },
    async idle() {
      while (inFlight.size) await Promise.allSettled([...inFlight])
    },
    get running() {
      return inFlight.size
    },
  }
}
