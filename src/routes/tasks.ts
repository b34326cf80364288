import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'
import { wireCtx } from '../http/env.ts'

const tag = 'Tasks'

export function taskRoutes({ meta }: Deps, shapes: WireShapes) {
  const { TaskListItem, TaskStatus, taskFilters, taskWire } = shapes.tasks
  const r = crud(new Router(), {
    tag,
    path: '/task_status',
    list: {
      summary: "The tenant's asynchronous tasks, newest first",
      query: listQuery(taskFilters),
      form: Form.of(TaskListItem, taskWire.list),
      read: (tenant, query) => meta.tasks.list(tenant, query),
    },
  })

  r.typed(
    {
      method: 'get',
      path: '/task_status/:taskID',
      tag,
      summary: 'Status of an asynchronous task (the statusUrl of a 202 answer)',
      response: TaskStatus,
    },
    async (c, { params }) => {
      const task = await meta.tasks.get(c.get('tenant'), params.taskID ?? '')
      return c.json(taskWire.detail(task, wireCtx(c)))
    },
  )

  return r
}
