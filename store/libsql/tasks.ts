import { randomUUID } from 'node:crypto'
import type { Db } from './db.ts'
import {
  INTERRUPTED,
  TaskState,
  type ListArgs,
  type TaskFile,
  type TaskRepository,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, marks, tenantList } from './list.ts'
import { readRequired } from './records.ts'
import { TASK_STATUS_TABLE, TASK_TABLE } from '../fields/tasks.ts'

/** States a task can still leave. */
const ACTIVE = [TaskState.waiting, TaskState.running]

const list = tenantList(TASK_TABLE, 'FROM tasks t', 't')

/** Asynchronous tasks of a tenant and their progress; src/tasks.ts runs them. */
export class TasksRepo implements TaskRepository {
  constructor(private readonly db: Db) {}

  /** Records a new waiting task and returns its taskID (a UUID). */
  async create(tenant: string, userIntID: number | null, taskName: string): Promise<string> {
    const taskID = randomUUID()
    await this.db.run(
      `INSERT INTO tasks (tenant_id, task_id, task_name, status, progress, user_int_id, create_at)
       VALUES (?, ?, ?, ?, 0, ?, ?)`,
      [tenant, taskID, taskName, TaskState.waiting, userIntID, Date.now()],
    )
    return taskID
  }

  /** The status of one task of the tenant ({taskID, status, progress, message, result}); NotFound('taskID'). */
  get(tenant: string, taskID: string) {
    return readRequired(
      this.db,
      TASK_STATUS_TABLE,
      'FROM tasks t WHERE t.tenant_id = ? AND t.task_id = ?',
      [tenant, taskID],
      'taskID',
    )
  }

  /** A page of the tenant's tasks, newest first by default. */
  list(tenant: string, q: ListArgs) {
    return listPage(this.db, list, [tenant], q)
  }

  /** waiting → running. */
  async markRunning(taskID: string): Promise<void> {
    await this.set(taskID, 'status = ?', [TaskState.running], [TaskState.waiting])
  }

  /** Progress (0..100) and an optional message of a waiting or running task. */
  async report(
    taskID: string,
    progress: number,
    message: string | null,
    resultJson?: string,
  ): Promise<void> {
    await this.set(
      taskID,
      'progress = ?, message = coalesce(?, message), result = coalesce(?, result)',
      [progress, message, resultJson ?? null],
      ACTIVE,
    )
  }

  /** → done, progress 100, with the JSON text of the result. */
  async finish(taskID: string, resultJson: string): Promise<void> {
    await this.set(
      taskID,
      'status = ?, progress = 100, result = ?',
      [TaskState.done, resultJson],
      ACTIVE,
    )
  }

  /** → failed, with a message for the caller. */
  async fail(taskID: string, message: string): Promise<void> {
    await this.set(taskID, 'status = ?, message = ?', [TaskState.failed, message], ACTIVE)
  }

  /** Keeps a file a task produced (e.g. the CSV of an export), replacing an earlier one of the same task. */
  async putFile(tenant: string, taskID: string, file: TaskFile, keep = Infinity) {
    const statements = [
      {
        sql: `INSERT OR REPLACE INTO task_files (task_id, tenant_id, file_name, content_type, content, secrets, create_at)
              VALUES (?, ?, ?, ?, ?, ?, ?)`,
        args: [
          taskID,
          tenant,
          file.name,
          file.contentType,
          file.content,
          file.secrets === false ? 0 : 1,
          Date.now(),
        ],
      },
    ]
    if (Number.isFinite(keep))
      statements.push({
        sql: `DELETE FROM task_files WHERE tenant_id = ? AND task_id NOT IN
                (SELECT task_id FROM task_files WHERE tenant_id = ? ORDER BY create_at DESC, rowid DESC LIMIT ?)`,
        args: [tenant, tenant, keep],
      })
    await this.db.batch(statements)
  }

  async countActive(tenant: string, taskName: string): Promise<number> {
    const r = await this.db.one(
      'SELECT count(*) AS n FROM tasks WHERE tenant_id = ? AND task_name = ? AND status IN (?, ?)',
      [tenant, taskName, TaskState.waiting, TaskState.running],
    )
    return Number(r?.n ?? 0)
  }

  /** The file of a task of the tenant; NotFound (errors.taskID) otherwise. */
  async getFile(tenant: string, taskID: string): Promise<TaskFile> {
    const r = await this.db.one(
      'SELECT file_name AS name, content_type AS contentType, content, secrets FROM task_files WHERE tenant_id = ? AND task_id = ?',
      [tenant, taskID],
    )
    if (!r) throw new NotFound('taskID', 'no file for this task (or no longer kept)')
    return {
      name: String(r.name),
      contentType: String(r.contentType),
      content: String(r.content),
      secrets: Number(r.secrets) === 1,
    }
  }

  /**
   * Marks every task still waiting or running as failed ('interrupted by a restart'): call once at start-up,
   * before any task runs, since a task lives only in the process that started it. Returns how many it marked.
   */
  async failInterruptedTasks(exceptNames: readonly string[] = []): Promise<number> {
    const except = exceptNames.map(() => '?').join(', ')
    const r = await this.db.run(
      `UPDATE tasks SET status = ?, message = ?, update_at = ? WHERE status IN (?, ?)${
        exceptNames.length ? ` AND task_name NOT IN (${except})` : ''
      }`,
      [TaskState.failed, INTERRUPTED, Date.now(), ...ACTIVE, ...exceptNames],
    )
    return r.changes
  }

  /** Updates a task only while it is in one of the `from` states (a finished task stays as it ended). */
  private async set(
    taskID: string,
    assignments: string,
    args: Array<string | number | null>,
    from: number[],
  ) {
    await this.db.run(
      `UPDATE tasks SET ${assignments}, update_at = ? WHERE task_id = ? AND status IN (${marks(from.length)})`,
      [...args, Date.now(), taskID, ...from],
    )
  }
}
