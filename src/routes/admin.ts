import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { TooMany } from '../kernel/errors.ts'
import { actorOf } from '../http/env.ts'

const tag = 'Operations'

/** Operations of the whole service: POST /admin/backup (a task answering 202 {statusUrl, taskID}). */
export function adminRoutes({ meta, services, tasks }: Deps, shapes: WireShapes) {
  const { TaskAccepted } = shapes.deviceTransfer
  const r = new Router()

  r.typed(
    {
      method: 'post',
      path: '/admin/backup',
      tag,
      summary:
        "Back up the embedded stores while the service runs (a task; its result names the copy's directory)",
      response: TaskAccepted,
      status: 202,
      admin: true,
      errors: [403, 429],
    },
    async (c) => {
      const actor = actorOf(c)
      await services.backup.authorize(actor)
      if ((await meta.tasks.countActive(actor.tenant, 'backup')) > 0)
        throw new TooMany({ task: 'a backup is running; try again when it is done' }, 10)
      const dir = services.backup.directory()
      const { taskID, statusUrl } = await tasks.start(actor.tenant, actor.userIntID, 'backup', () =>
        services.backup.run(dir),
      )
      return c.json({ statusUrl, taskID }, 202)
    },
  )
  return r
}
