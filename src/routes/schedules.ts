import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import type { ScheduleKind } from '../../store/types.ts'
import type { ScheduleBody } from '../schemas/schedules.ts'
import type { Serializer } from '../wire/shape.ts'
import type { FilterFields } from '../http/paging.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

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
  const { kind } = f
  const path = `/${kind}_schedule_publish`
  const target =
    kind === 'device' ? 'a device (deviceID or deviceIntID)' : 'a group (groupID or groupIntID)'
  const form = Form.of(f.record, f.wire.detail)
  crud(r, {
    tag,
    path,
    list: {
      summary: `List ${kind} schedules`,
      query: listQuery(f.filters),
      form,
      read: (tenant, query) => meta.schedules.list(tenant, kind, query),
    },
    detail: {
      summary: `A ${kind} schedule`,
      form,
      read: (tenant, id) => meta.schedules.get(tenant, kind, id),
    },
    create: {
      summary: `Schedule commands to ${target}`,
      description: `${TIMING} Answers 201 with an empty body and the new schedule's URL in \`Location\`.`,
      body: f.create,
      write: (actor, body) => services.schedules.create(actor, kind, body),
      location: (created) => `/api/v1${path}/${created.id}`,
    },
    update: {
      summary: `Edit a ${kind} schedule`,
      description: `${TIMING} The whole record as read may be sent back; nextRunAt is recomputed when the timing or \`enable\` changes.`,
      body: f.update,
      form,
      write: (actor, id, body) => services.schedules.update(actor, kind, id, body),
    },
    remove: {
      summary: `Delete ${kind} schedules (all or none)`,
      write: (actor, ids) => services.schedules.remove(actor, kind, ids),
    },
  })
}
