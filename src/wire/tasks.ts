import {
  TASK_STATUS_TABLE,
  TASK_TABLE,
  type TaskRecord,
  type TaskStatusRecord,
} from '../../store/fields/tasks.ts'
import { TaskListItem, TaskStatus } from '../schemas/tasks.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

const status = recordSerializer<TaskStatusRecord>()(
  { detail: TaskStatus },
  wireSpecOf(TASK_STATUS_TABLE),
)
const list = recordSerializer<TaskRecord>()({ list: TaskListItem }, wireSpecOf(TASK_TABLE))

export const taskWire = { ...status, ...list }
