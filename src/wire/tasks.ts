import { TaskListItem, TaskStatus } from '../schemas/tasks.ts'
import { createSerializer } from './shape.ts'

export const taskWire = createSerializer(
  { detail: TaskStatus, list: TaskListItem },
  { labels: { status: 'taskStatus' }, times: ['createAt', 'updateAt'], json: ['result'] },
)
