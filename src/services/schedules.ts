/**
 * Scheduled commands to a device or a group: the rules of their timing, and the loop that fires them. Nodes
 * sharing the metadata store claim each due time with a compare-and-set (meta.schedules.claim), so each due time
 * fires once, on whichever node claims it first; a due time that passed while no node ran fires once when one
 * starts. Each firing creates ordinary commands with `scheduleID` set (a blocked or offline device's is `unsent`).
 */
import { Invalid, NotFound, type FieldErrors } from '../kernel/errors.ts'
import { parseTime } from '../kernel/time.ts'
import { firstRunAt, nextRunAfter, timingErrors, type Timing } from '../rules/schedules.ts'
import type { ScheduleBody } from '../schemas/schedules.ts'
import type { MetaStore, ScheduleInput, ScheduleKind, ScheduleRecord } from '../../store/types.ts'
import type { CommandService } from './commands.ts'
import type { Actor } from './types.ts'
import { errorLog, type Logger } from '../kernel/log.ts'

export interface ScheduleDeps {
  meta: MetaStore
  commands: Pick<CommandService, 'toDevice' | 'toGroup'>
  config: { TIMEZONE: string }
  now?: () => number
  log?: (message: string, e?: unknown) => void
  /** Where the default `log` writes; default: the fallback logger. */
  logger?: Logger
}

/** How often a node looks for due schedules, and how many it takes at a time. */
const TICK_MS = 500
const BATCH = 100

/** The tenant's device or group the body names (by string id and/or record id); 404 otherwise. */
export async function targetOf(
  meta: MetaStore,
  tenant: string,
  kind: ScheduleKind,
  b: ScheduleBody,
) {
  if (kind === 'device') {
    const byID =
      b.deviceID === undefined ? undefined : await meta.ingest.device('deviceID', b.deviceID)
    const byIntID =
      b.deviceIntID === undefined ? undefined : await meta.ingest.device('id', b.deviceIntID)
    const d = byID ?? byIntID
    if (!d || d.tenantID !== tenant || (byID && byIntID && byID.id !== byIntID.id))
      throw new NotFound({ deviceID: 'no such device' })
    return { targetIntID: d.id, targetID: d.deviceID }
  }
  const byIntID =
    b.groupIntID === undefined
      ? undefined
      : await meta.groups.get(tenant, b.groupIntID).catch(() => undefined)
  const byID =
    b.groupID === undefined
      ? undefined
      : (
          await meta.groups.list(tenant, {
            page: 1,
            limit: 1,
            filters: [{ field: 'groupID', op: 'eq', value: b.groupID }],
          })
        ).items[0]
  const g = byIntID ?? byID
  if (!g || (b.groupIntID !== undefined && !byIntID) || (byID && byIntID && byID.id !== byIntID.id))
    throw new NotFound({ groupID: 'no such group' })
  return { targetIntID: g.id, targetID: g.groupID }
}

/**
 * The body over the stored schedule (absent fields keep their values), its timing checked at `t` and its
 * crontabTime read in `tz`.
 */
export function mergeSchedule(
  b: ScheduleBody,
  stored: ScheduleRecord | undefined,
  t: number,
  tz: string,
) {
  const pick = <K extends keyof ScheduleBody & keyof ScheduleInput>(k: K) =>
    b[k] === undefined ? (stored?.[k] ?? null) : (b[k] ?? null)
  const errors: FieldErrors = {}
  let crontabTime = stored?.crontabTime ?? null
  if (b.crontabTime !== undefined) {
    crontabTime = b.crontabTime === null ? null : parseTime(b.crontabTime, tz)
    if (b.crontabTime !== null && crontabTime === null)
      errors.crontabTime = 'not a valid time: YYYY-MM-DD HH:MM:SS'
  }
  const scheduleType = b.scheduleType ?? stored?.scheduleType ?? 0
  const timing: Timing = {
    scheduleType,
    crontabTime: scheduleType === 1 ? crontabTime : null,
    IntervalMinute: scheduleType === 2 ? pick('IntervalMinute') : null,
    cron: scheduleType === 3 ? pick('cron') : null,
  }
  const enable = b.enable ?? stored?.enable ?? 1
  // a once schedule that fired at its crontabTime, or is still due at it, is not asked for a later one
  const settled =
    stored !== undefined &&
    timing.crontabTime !== null &&
    (stored.lastRunAt === timing.crontabTime || stored.nextRunAt === timing.crontabTime)
  const future = !settled && (stored === undefined || enable === 1)
  const all = { ...timingErrors(timing, t, tz, future), ...errors }
  if (Object.keys(all).length) throw new Invalid(all)
  return {
    ...timing,
    scheduleName: b.scheduleName ?? stored?.scheduleName ?? '',
    topic: pick('topic') || null,
    payload: b.payload ?? stored?.payload ?? '',
    qos: pick('qos'),
    timeout: pick('timeout'),
    ttl: pick('ttl'),
    needAck: pick('needAck'),
    enable,
  }
}

/** The due time a merged schedule has next: kept while its timing did not change, else from now. */
export function nextRunAtOf(
  s: Timing & { enable: number },
  stored: ScheduleRecord | undefined,
  t: number,
  tz: string,
) {
  if (s.enable !== 1) return null
  if (s.scheduleType === 1) return stored?.lastRunAt === s.crontabTime ? null : s.crontabTime
  const same =
    stored !== undefined &&
    stored.enable === 1 &&
    stored.scheduleType === s.scheduleType &&
    stored.IntervalMinute === s.IntervalMinute &&
    stored.cron === s.cron
  return same && stored.nextRunAt !== null ? stored.nextRunAt : firstRunAt(s, t, tz)
}

/** The command request one firing of `s` sends (its group fields only for a group schedule). */
export function commandOf(s: ScheduleRecord) {
  const command = {
    topic: s.topic ?? undefined,
    payload: s.payload,
    qos: s.qos === null ? undefined : (s.qos as 0 | 1),
    timeout: s.timeout ?? undefined,
    ttl: s.ttl ?? undefined,
  }
  return s.kind === 'device'
    ? { kind: 'device' as const, body: { deviceIntID: s.targetIntID, ...command } }
    : {
        kind: 'group' as const,
        body: {
          groupIntID: s.targetIntID,
          ...command,
          needAck: s.needAck === null ? undefined : (s.needAck as 0 | 1),
        },
      }
}

/** Creates the commands of one claimed due time and records the firing's taskID. */
async function fire(
  { meta, commands }: Pick<ScheduleDeps, 'meta' | 'commands'>,
  s: ScheduleRecord,
) {
  const actor = { tenant: s.tenantID, userIntID: s.userIntID, username: s.createUser }
  const opts = { scheduleID: s.id }
  const c = commandOf(s)
  const { taskID } =
    c.kind === 'device'
      ? await commands.toDevice(actor, c.body, opts)
      : await commands.toGroup(actor, c.body, opts)
  await meta.schedules.setLastTask(s.id, taskID)
}

/** Whether an edit names another target than the stored one (then it is looked up again). */
export function retargets(kind: ScheduleKind, b: ScheduleBody, stored: ScheduleRecord): boolean {
  return kind === 'device'
    ? b.deviceIntID !== undefined || (b.deviceID !== undefined && b.deviceID !== stored.targetID)
    : b.groupIntID !== undefined || (b.groupID !== undefined && b.groupID !== stored.targetID)
}

export function scheduleService(deps: ScheduleDeps) {
  const { meta } = deps
  const tz = deps.config.TIMEZONE
  const now = deps.now ?? Date.now
  const log = deps.log ?? errorLog(deps.logger, 'schedules')
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let closed = false

  /** Claims the schedules due now and fires those this node claimed. */
  async function runDue() {
    const t = now()
    const due = await meta.schedules.due(t, BATCH)
    const claimed: ScheduleRecord[] = []
    for (const s of due) {
      if (closed) break
      const next = nextRunAfter(s, s.nextRunAt!, t, tz)
      const c = await meta.schedules.claim(s.id, s.nextRunAt!, next)
      if (c) claimed.push(c)
    }
    await Promise.all(
      claimed.map((s) => fire(deps, s).catch((e) => log(`schedule ${s.id} failed to fire`, e))),
    )
  }

  return {
    async create(a: Actor, kind: ScheduleKind, b: ScheduleBody): Promise<ScheduleRecord> {
      const t = now()
      const target = await targetOf(meta, a.tenant, kind, b)
      const s = mergeSchedule(b, undefined, t, tz)
      const input = { ...target, ...s, nextRunAt: nextRunAtOf(s, undefined, t, tz) }
      return meta.schedules.create(a.tenant, kind, a.userIntID, input)
    },

    /** Edits a schedule; the next due time is recomputed when its timing or `enable` changed. */
    async update(a: Actor, kind: ScheduleKind, id: number, b: ScheduleBody) {
      const t = now()
      const stored = await meta.schedules.get(a.tenant, kind, id)
      const target = retargets(kind, b, stored)
        ? await targetOf(meta, a.tenant, kind, b)
        : { targetIntID: stored.targetIntID, targetID: stored.targetID }
      const s = mergeSchedule(b, stored, t, tz)
      const input = { ...target, ...s, nextRunAt: nextRunAtOf(s, stored, t, tz) }
      return meta.schedules.update(a.tenant, kind, id, input)
    },

    /** Deletes all of `ids` or none (404 errors.ids for one not of the tenant and kind). */
    remove: (a: Actor, kind: ScheduleKind, ids: number[]) =>
      meta.schedules.delete(a.tenant, kind, ids),

    /** One turn of the loop: claims the schedules due now and fires those this node claimed. */
    runDue,

    /** Starts the loop; a due time missed while no node ran fires on its first turn. */
    start() {
      closed = false
      const turn = () => {
        if (running || closed) return
        running = runDue()
          .catch((e) => log('firing failed', e))
          .finally(() => (running = undefined))
      }
      timer = setInterval(turn, TICK_MS)
      timer.unref()
      turn()
    },

    /** Stops the loop and waits for the firing in progress. */
    async close() {
      closed = true
      if (timer) clearInterval(timer)
      timer = undefined
      await running
    },
  }
}

export type ScheduleService = ReturnType<typeof scheduleService>
