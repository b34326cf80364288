import type { Deps } from '../deps.ts'
import { crud, Form } from '../http/crud.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { listQuery } from '../http/paging.ts'
import { Router } from '../http/router.ts'
import {
  Rollout,
  RolloutCreate,
  RolloutDevice,
  rolloutDeviceFilters,
  rolloutFilters,
  SoftVersions,
} from '../schemas/rollouts.ts'
import { rolloutWire } from '../wire/rollouts.ts'

const tag = 'Firmware'

/**
 * Firmware rollouts: made, listed, paused, resumed, canceled; their devices; a device's firmware history; the
 * versions a product's fleet runs.
 */
export function rolloutRoutes({ meta, services }: Deps) {
  const rollouts = services.rollouts
  const detail = Form.of(Rollout, rolloutWire.detail)
  const r = crud(new Router(), {
    tag,
    path: '/firmware_rollouts',
    store: meta.rollouts,
    list: { summary: 'List firmware rollouts', query: listQuery(rolloutFilters), form: detail },
    detail: { summary: 'A firmware rollout with its devices counted by state', form: detail },
    create: {
      summary: 'Roll a firmware package out to devices, a group or a whole product',
      description:
        "The devices are those of the target now (of the package's product; with fromVersions, those running one " +
        'of them). Devices at the version already are `updated` at once; the others are notified on `ota/notify` ' +
        'at most ratePerMinute a minute, spread evenly (from rampUp.startPerMinute, times rampUp.factor each ' +
        'rampUp.every devices updated). An offline device is notified when it subscribes again. A device in ' +
        'another open rollout waits for it: the earlier rollout goes first.',
      body: RolloutCreate,
      form: detail,
      write: (a, body) => rollouts.create(a, body),
    },
  })

  for (const [action, summary] of [
    ['pause', 'Pause a running rollout (notified devices go on)'],
    ['resume', 'Resume a paused rollout at its pace, from now'],
    ['cancel', 'Cancel a running or paused rollout (notified devices are sent ota/cancel)'],
  ] as const)
    r.typed(
      { method: 'post', path: `/firmware_rollouts/:id/${action}`, tag, summary, response: Rollout },
      async (c, { id }) =>
        c.json(rolloutWire.detail(await rollouts[action](actorOf(c), id), wireCtx(c))),
    )

  crud(r, {
    tag,
    path: '/firmware_rollouts/:id/devices',
    list: {
      summary: "A rollout's devices and their states (filter status=)",
      query: listQuery(rolloutDeviceFilters),
      form: Form.of(RolloutDevice, rolloutWire.device),
      read: (tenant, q, id) => meta.rollouts.devices(tenant, id, q),
    },
  })

  crud(r, {
    tag,
    path: '/devices/:id/firmware',
    list: {
      summary: "A device's firmware history: its state in each rollout, newest change first",
      query: listQuery(rolloutDeviceFilters),
      form: Form.of(RolloutDevice, rolloutWire.device),
      read: (tenant, q, id) => meta.rollouts.history(tenant, id, q),
    },
  })

  r.typed(
    {
      method: 'get',
      path: '/products/:id/soft_versions',
      tag,
      summary: "The firmware versions (softVersion) a product's devices run, with their counts",
      response: SoftVersions,
    },
    async (c, { id }) => c.json(await meta.rollouts.softVersions(c.get('tenant'), id)),
  )
  return r
}
