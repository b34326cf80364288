/**
 * Commands to a group: with `needAck` 1, one command per member device (each with its own lifecycle and control
 * log, paced by `ratePerSecond`), a group control log holding the payload, and a task whose progress and result
 * follow the members' outcomes; with `needAck` 0, one QoS 0 publish to the group topic and only the group's log.
 * Members are stored before anything is sent, so a node that stops in the middle leaves them to the dispatcher of
 * whichever node runs next. The rules are the steps of `group-command-steps.ts`.
 */
import type { EventBus } from '../kernel/events.ts'
import { NotFound } from '../kernel/errors.ts'
import type { CommandBroker } from './ports.ts'
import { groupTopic } from '../kernel/topics.ts'
import type { CommandRecord, GroupMemberRecord, GroupRecord, MetaStore } from '../../store/types.ts'
import { envelope, type CommandDispatcher } from './command-dispatch.ts'
import { createdEvent, groupCreatedEvent, STATUS_REASONS } from './command-events.ts'
import {
  groupCommandRow,
  groupReport,
  groupRequestTopic,
  memberRows,
  type GroupCommandRequest,
} from './group-command-steps.ts'
import type { Actor } from './types.ts'

export { groupOutcome, type GroupCommandRequest } from './group-command-steps.ts'

interface GroupDeps {
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  dispatcher: CommandDispatcher
  now: () => number
  log: (message: string, e?: unknown) => void
  defaults: { COMMAND_TIMEOUT: number }
}

/** The tenant's group named by groupIntID (and groupID, when both are given) or groupID; 404 otherwise. */
export async function groupOf(
  meta: MetaStore,
  tenant: string,
  r: { groupIntID?: number; groupID?: string },
): Promise<GroupRecord> {
  if (r.groupIntID !== undefined) {
    const g = await meta.groups.get(tenant, r.groupIntID).catch(() => undefined)
    if (g && (r.groupID === undefined || g.groupID === r.groupID)) return g
  } else if (r.groupID !== undefined) {
    const filters = [{ field: 'groupID', op: 'eq' as const, value: r.groupID }]
    const { items } = await meta.groups.list(tenant, { page: 1, limit: 1, filters })
    if (items[0]) return items[0]
  }
  throw new NotFound({ groupID: 'no such group' })
}

const MEMBER_PAGE = 5000

/** Every member of a group, a page at a time, in id order. */
async function allMembers(
  meta: MetaStore,
  tenant: string,
  groupIntID: number,
): Promise<GroupMemberRecord[]> {
  const out: GroupMemberRecord[] = []
  for (let page = 1; ; page++) {
    const q = { page, limit: MEMBER_PAGE, filters: [], sort: 'id', order: 'asc' as const }
    const { items } = await meta.groups.members.list(tenant, groupIntID, q)
    out.push(...items)
    if (items.length < MEMBER_PAGE) return out
  }
}

/** How often a group task's progress is written while its members move. */
const PROGRESS_MS = 250
/** How often groups with delivered members are looked at anyway (one settles when its timeout passes). */
const RECHECK_MS = 1000

/**
 * The group commands whose members are still moving: a change of one of their members marks the group, and the
 * marked groups' progress is written every PROGRESS_MS (those with delivered members every RECHECK_MS anyway).
 */
export function groupTracker(d: Pick<GroupDeps, 'meta' | 'dispatcher' | 'now' | 'log'>) {
  const { meta } = d
  /** Group command row id → its tenant and task, for the groups whose members are still moving. */
  const open = new Map<number, { tenant: string; taskID: string }>()
  const dirty = new Set<number>()
  /** Open groups with delivered members waiting for an answer (they settle when their timeout passes). */
  const awaiting = new Set<number>()
  let timer: NodeJS.Timeout | undefined
  let recheck: NodeJS.Timeout | undefined

  /**
   * Writes the task's progress, message and result; once every member settled, the task is done and the group's
   * log ends succeeded, failed or partial.
   */
  async function progress(parentID: number) {
    const g = open.get(parentID)
    if (!g) return
    const r = groupReport(await meta.commands.groupCounts(parentID, d.now()))
    const counts = JSON.stringify(r.counts)
    if (!r.done) {
      if (r.awaiting) awaiting.add(parentID)
      else awaiting.delete(parentID)
      await meta.tasks.report(g.taskID, r.pct, r.message, counts)
      return
    }
    open.delete(parentID)
    awaiting.delete(parentID)
    await meta.tasks.report(g.taskID, 100, r.message, counts)
    await meta.tasks.finish(g.taskID, counts)
    const row = await meta.commands.get(g.tenant, g.taskID)
    const fields = r.counts.delivered ? { deliveredAt: d.now() } : {}
    if (row) await d.dispatcher.move(row, ['queued', 'sent'], r.outcome, fields)
  }
  function flush() {
    timer = undefined
    const ids = [...dirty]
    dirty.clear()
    for (const id of ids) void progress(id).catch((e) => d.log('group progress failed', e))
  }
  /** Writes the marked groups' progress soon (when some are marked). */
  const flushSoon = () => {
    if (dirty.size) timer ??= setTimeout(flush, PROGRESS_MS)
  }
  return {
    track: (g: CommandRecord) => void open.set(g.id, { tenant: g.tenantID, taskID: g.taskID }),
    mark: (id: number) => void dirty.add(id),
    flushSoon,
    /** A member's change marks its group (when it is one of the open ones). */
    onStatus(e: { parentID: number | null }) {
      if (e.parentID === null || !open.has(e.parentID)) return
      dirty.add(e.parentID)
      flushSoon()
    },
    startRecheck() {
      recheck = setInterval(() => {
        for (const id of awaiting) dirty.add(id)
        flushSoon()
      }, RECHECK_MS).unref()
    },
    close() {
      if (timer) clearTimeout(timer)
      if (recheck) clearInterval(recheck)
    },
  }
}

type Tracker = ReturnType<typeof groupTracker>

/** Stores a needAck 1 group command's members with their events, moving the group row to `sent`. */
async function fanOut(d: GroupDeps, tracker: Tracker, group: CommandRecord, rate?: number) {
  const t = d.now()
  const rows = memberRows(
    group,
    await allMembers(d.meta, group.tenantID, group.groupIntID!),
    t,
    rate,
  )
  tracker.track(group)
  const stored = await d.meta.commands.fanOut(
    d.dispatcher.change(group, ['queued'], 'sent', { sentAt: t }),
    rows,
    rows.map((r) => createdEvent(r, t)),
  )
  if (stored) d.dispatcher.announce([stored.group, ...stored.members])
  tracker.mark(group.id)
  tracker.flushSoon()
  void d.dispatcher.dispatchDue().catch((e) => d.log('dispatch failed', e))
}

/** A needAck 0 group command: one publish to the group's full topic (`unsent` when the broker refuses it). */
async function publishToGroup(
  d: GroupDeps,
  tenant: string,
  g: GroupRecord,
  group: CommandRecord,
  payload: string,
) {
  const product = await d.meta.products.get(tenant, g.productIntID)
  const where = { cloudProtocol: product.cloudProtocol, tenantID: tenant, productID: g.productID }
  const ok = await d.broker.publishTopic(
    groupTopic(where, g.groupID),
    envelope(group.taskID, payload),
  )
  if (!ok)
    await d.dispatcher.move(group, ['sent'], 'unsent', {
      statusReason: STATUS_REASONS.publishFailed,
    })
  await d.meta.tasks.finish(group.taskID, JSON.stringify({ published: ok }))
}

/** Publishes to a group; answers its task (the group log and the members are stored first). */
async function sendToGroup(
  d: GroupDeps,
  tracker: Tracker,
  a: Actor,
  r: GroupCommandRequest,
  opts: { scheduleID?: number },
): Promise<{ taskID: string; statusUrl: string }> {
  const g = await groupOf(d.meta, a.tenant, r)
  const t = d.now()
  const topic = groupRequestTopic(r)
  const taskID = await d.meta.tasks.create(a.tenant, a.userIntID, 'group_publish')
  const defaultTimeout = d.defaults.COMMAND_TIMEOUT
  const input = groupCommandRow(a, g, r, { t, taskID, topic, defaultTimeout, ...opts })
  const group = await d.meta.commands.createGroup(input, [groupCreatedEvent(input, t)])
  d.dispatcher.announce([group])
  await d.meta.tasks.markRunning(taskID)
  if (input.needAck === 0) await publishToGroup(d, a.tenant, g, group, r.payload)
  else await fanOut(d, tracker, group, r.ratePerSecond)
  return { taskID, statusUrl: `/task_status/${taskID}` }
}

export function groupCommands(d: GroupDeps) {
  const tracker = groupTracker(d)
  const onStatus = (e: { parentID: number | null }) => tracker.onStatus(e)
  return {
    /** Publishes to a group; answers its task (the group log and the members are stored first). */
    toGroup: (a: Actor, r: GroupCommandRequest, opts: { scheduleID?: number } = {}) =>
      sendToGroup(d, tracker, a, r, opts),

    /**
     * Picks up the group commands a stopped process left with members still moving, and writes the members of
     * those it left before they were written (the group row still `queued`, no member stored).
     */
    async resume() {
      d.events.on('command.status', onStatus)
      for (const g of await d.meta.commands.openGroups()) {
        tracker.track(g)
        if (
          g.commandStatus === 'queued' &&
          (await d.meta.commands.groupCounts(g.id, 0)).total === 0
        )
          await fanOut(d, tracker, g, undefined)
        tracker.mark(g.id)
      }
      tracker.flushSoon()
      tracker.startRecheck()
    },

    close() {
      d.events.off('command.status', onStatus)
      tracker.close()
    },
  }
}
