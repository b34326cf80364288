import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import type { ScheduleKind } from '../../store/types.ts'
import type { ScheduleBody } from '../schemas/schedules.ts'
import type { Serializer } from '../wire/shape.ts'
import type { FilterFields } from '../http/paging.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Schedules'

const TIMING =
  '`scheduleType` 1: once at `crontabTime` (YYYY-MM-DD HH:MM:SS in the service time zone, in the future); ' +
  '2: every `IntervalMinute` minutes (1 to 525600, a number or a numeric string); 3: at each match of `cron`, ' +
  'a 5-field expression (minute hour day-of-month month day-of-week) in the service time zone. ' +
  'Each firing creates ordinary commands with `scheduleID` set; `lastTaskID` names the last one.'

/** One family of schedule routes: device or group schedules under `/{kind}_schedule_publish`. */
interface Family {
  kind: ScheduleKind
  create: z.ZodType<ScheduleBody>
  update: z.ZodType<ScheduleBody>
  record: z.ZodType
  filters: FilterFields
  wire: Serializer<'detail'>
}

export function scheduleRoutes(deps: Deps, shapes: WireShapes) {
  const s = shapes.schedules
  const r = new Router()
  mount(r, deps, {
    kind: 'device',
    create: s.DeviceScheduleCreate,
    update: s.DeviceScheduleUpdate,
    record: s.DeviceSchedule,
    filters: s.deviceScheduleFilters,
    wire: s.deviceScheduleWire,
  })
  mount(r, deps, {
    kind: 'group',
    create: s.GroupScheduleCreate,
    update: s.GroupScheduleUpdate,
    record: s.GroupSchedule,
    filters: s.groupScheduleFilters,
    wire: s.groupScheduleWire,
  })
  return r
}

function mount(r: Router, { meta, services }: Deps, f: Family) {
  const path = `/${f.kind}_schedule_publish`
  const target =
    f.kind === 'device' ? 'a device (deviceID or deviceIntID)' : 'a group (groupID or groupIntID)'

  r.route(
    {
      method: 'get',
      path,
      tag,
      summary: `List ${f.kind} schedules`,
      query: listQuery(f.filters),
      response: Page(f.record),
    },
    async (c, { query }) => {
      const { items, count } = await meta.schedules.list(c.get('tenant'), f.kind, query)
      return c.json(
        pageOf(
          items.map((s) => f.wire.detail(s, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    {
      method: 'get',
      path: `${path}/:id`,
      tag,
      summary: `A ${f.kind} schedule`,
      response: f.record,
    },
    async (c, { id }) =>
      c.json(f.wire.detail(await meta.schedules.get(c.get('tenant'), f.kind, id), wireCtx(c))),
  )

  r.route(
    {
      method: 'post',
      path,
      tag,
      summary: `Schedule commands to ${target}`,
      description: `${TIMING} Answers 201 with an empty body and the new schedule's URL in \`Location\`.`,
      body: f.create,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.schedules.create(actorOf(c), f.kind, body)
      return c.body(null, 201, { Location: `/api/v1${path}/${created.id}` })
    },
  )

  r.route(
    {
      method: 'put',
      path: `${path}/:id`,
      tag,
      summary: `Edit a ${f.kind} schedule`,
      description: `${TIMING} The whole record as read may be sent back; nextRunAt is recomputed when the timing or \`enable\` changes.`,
      body: f.update,
      response: f.record,
    },
    async (c, { id, body }) => {
      const updated = await services.schedules.update(actorOf(c), f.kind, id, body)
      return c.json(f.wire.detail(updated, wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path,
      tag,
      summary: `Delete ${f.kind} schedules (all or none)`,
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.schedules.remove(actorOf(c), f.kind, query.ids)
      return c.body(null, 204)
    },
  )
}
