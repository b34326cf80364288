import { z } from 'zod'
import { Int, Label, NullableStr, Str, Timestamp } from './common.ts'
import { enumDoc } from '../enums.ts'
import type { FilterFields } from '../http/paging.ts'

/** The task-status resource a statusUrl points at. */
export const TaskStatus = z.object({
  taskID: Str,
  status: Int.meta(enumDoc('taskStatus')),
  statusLabel: Label,
  progress: Int.meta({ description: '0 to 100' }),
  message: NullableStr,
  result: z.unknown().meta({ description: 'what the task produced (JSON), null until it is done' }),
})

/** A task in the tenant's list: what it is and when, without its result. */
export const TaskListItem = TaskStatus.omit({ result: true }).extend({
  taskName: Str,
  createAt: Timestamp,
  updateAt: Timestamp,
})

export const taskFilters = { taskName: 'text', status: 'int' } satisfies FilterFields

/** Answer of every asynchronous call (202). */
export const TaskStarted = z.object({
  statusUrl: Str.meta({ description: '/task_status/<taskID>' }),
  taskID: Str,
})
