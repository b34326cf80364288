import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'

const tag = 'Tasks'

export function taskRoutes({ meta }: Deps, shapes: WireShapes) {
  const { TaskListItem, TaskStatus, taskFilters, taskWire } = shapes.tasks
  const r = new Router()

  r.route(
    {
      method: 'get',
      path: '/task_status',
      tag,
      summary: "The tenant's asynchronous tasks, newest first",
      query: listQuery(taskFilters),
      response: Page(TaskListItem),
    },
    async (c, { query }) => {
      const { items, count } = await meta.tasks.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((x) => taskWire.list(x, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
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
