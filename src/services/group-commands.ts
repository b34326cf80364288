/**
 * Commands to a group: with `needAck` 1, one command per member device (each with its own lifecycle and control
 * log, paced by `ratePerSecond`), a group control log holding the payload, and a task whose progress and result
 * follow the members' outcomes; with `needAck` 0, one QoS 0 publish to the group topic and only the group's log.
 * Members are stored before anything is sent, so a node that stops in the middle leaves them to the dispatcher of
 * whichever node runs next.
 */
import type { EventBus } from '../kernel/events.ts'
import { Invalid, NotFound } from '../kernel/errors.ts'
import type { CommandBroker } from './ports.ts'
import { groupRelative, groupTopic } from '../kernel/topics.ts'
import {
  outboxOf,
  type CommandInput,
  type CommandRecord,
  type CommandStatus,
  type GroupProgress,
  type GroupMemberRecord,
  type GroupRecord,
  type MetaStore,
} from '../../store/types.ts'
import { envelope, newTaskID, type CommandDispatcher } from './command-dispatch.ts'
import { commandEventOf, createdEvent } from './command-events.ts'
import type { Actor } from './types.ts'

export interface GroupCommandRequest {
  groupID?: string
  groupIntID?: number
  topic?: string
  payload: string
  qos?: 0 | 1
  timeout?: number
  ttl?: number
  /** 1 (default): one command per member, with receipts; 0: one publish to the group topic. */
  needAck?: 0 | 1
  /** Members sent per second (default: as fast as the dispatcher goes). */
  ratePerSecond?: number
}

interface GroupDeps {
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  dispatcher: CommandDispatcher
  now: () => number
  log: (message: string, e?: unknown) => void
  defaults: { COMMAND_TIMEOUT: number }
}

/** How often a group task's progress is written while its members move. */
const PROGRESS_MS = 250
/** How often groups with delivered members are looked at anyway (one settles when its timeout passes). */
const RECHECK_MS = 1000
const MEMBER_PAGE = 5000

/** A settled group's outcome: every member succeeded or was delivered, none did, or some did. */
export function groupOutcome(c: GroupProgress): CommandStatus {
  if (c.failed === 0) return 'succeeded'
  return c.failed === c.total ? 'failed' : 'partial'
}

export function groupCommands(d: GroupDeps) {
  const { meta, events } = d
  /** Group command row id → its tenant and task, for the groups whose members are still moving. */
  const open = new Map<number, { tenant: string; taskID: string }>()
  const dirty = new Set<number>()
  /** Open groups with delivered members waiting for an answer (they settle when their timeout passes). */
  const awaiting = new Set<number>()
  let timer: NodeJS.Timeout | undefined
  let recheck: NodeJS.Timeout | undefined

  async function groupOf(tenant: string, r: GroupCommandRequest): Promise<GroupRecord> {
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

  async function members(tenant: string, groupIntID: number): Promise<GroupMemberRecord[]> {
    const out: GroupMemberRecord[] = []
    for (let page = 1; ; page++) {
      const q = { page, limit: MEMBER_PAGE, filters: [], sort: 'id', order: 'asc' as const }
      const { items } = await meta.groups.members.list(tenant, groupIntID, q)
      out.push(...items)
      if (items.length < MEMBER_PAGE) return out
    }
  }

  /**
   * Writes the task's progress, message and result; once every member settled, the task is done and the group's
   * log ends succeeded, failed or partial.
   */
  async function progress(parentID: number) {
    const g = open.get(parentID)
    if (!g) return
    const { settled, ...counts } = await meta.commands.groupCounts(parentID, d.now())
    const pct = counts.total ? Math.floor((100 * settled) / counts.total) : 100
    const message = `${settled} of ${counts.total} members settled`
    if (settled < counts.total) {
      // delivered members settle when their timeout passes, with no event: look again until then
      if (counts.total - counts.pending > settled) awaiting.add(parentID)
      else awaiting.delete(parentID)
      await meta.tasks.report(g.taskID, pct, message, JSON.stringify(counts))
      return
    }
    open.delete(parentID)
    awaiting.delete(parentID)
    const outcome = groupOutcome({ ...counts, settled })
    await meta.tasks.report(g.taskID, 100, `${message}: ${outcome}`, JSON.stringify(counts))
    await meta.tasks.finish(g.taskID, JSON.stringify(counts))
    const row = await meta.commands.get(g.tenant, g.taskID)
    if (row)
      await d.dispatcher.move(
        row,
        ['queued', 'sent'],
        outcome,
        counts.delivered ? { deliveredAt: d.now() } : {},
      )
  }

  /** Stores a needAck 1 group command's members with their events, moving the group row to `sent`. */
  async function fanOut(group: CommandRecord, rate: number | undefined) {
    const t = d.now()
    const list = await members(group.tenantID, group.groupIntID!)
    const rows = list.map((m, i): CommandInput => ({
      tenantID: group.tenantID,
      taskID: newTaskID(),
      deviceIntID: m.id,
      deviceID: m.deviceID,
      deviceName: m.deviceName,
      topic: group.topic,
      payload: group.payload,
      qos: group.qos,
      timeoutMs: group.timeoutMs,
      expiresAt: group.expiresAt,
      status: 'queued',
      dispatchAt: rate ? t + Math.floor((i * 1000) / rate) : t,
      parentID: group.id,
      groupIntID: group.groupIntID,
      groupID: group.groupID,
      groupName: group.groupName,
      scheduleID: group.scheduleID,
      publishUser: group.publishUser,
      userIntID: group.userIntID,
    }))
    open.set(group.id, { tenant: group.tenantID, taskID: group.taskID })
    const stored = await meta.commands.fanOut(
      d.dispatcher.change(group, ['queued'], 'sent', { sentAt: t }),
      rows,
      rows.map((r) => createdEvent(r, t)),
    )
    if (stored) d.dispatcher.announce([stored.group, ...stored.members])
    dirty.add(group.id)
    timer ??= setTimeout(flush, PROGRESS_MS)
    void d.dispatcher.dispatchDue().catch((e) => d.log('dispatch failed', e))
  }

  const onStatus = (e: { parentID: number | null }) => {
    if (e.parentID === null || !open.has(e.parentID)) return
    dirty.add(e.parentID)
    timer ??= setTimeout(flush, PROGRESS_MS)
  }
  function flush() {
    timer = undefined
    const ids = [...dirty]
    dirty.clear()
    for (const id of ids) void progress(id).catch((e) => d.log('group progress failed', e))
  }

  return {
    /** Publishes to a group; answers its task (the group log and the members are stored first). */
    async toGroup(
      a: Actor,
      r: GroupCommandRequest,
      opts: { scheduleID?: number } = {},
    ): Promise<{ taskID: string; statusUrl: string }> {
      const g = await groupOf(a.tenant, r)
      const t = d.now()
      const needAck = r.needAck ?? 1
      const qos = needAck === 0 ? 0 : (r.qos ?? 1)
      const timeoutMs = (r.timeout ?? d.defaults.COMMAND_TIMEOUT) * 1000
      const ttlMs = (r.ttl ?? 0) * 1000
      const topic = (r.topic ?? 'inbox').replace(/^\/+/, '')
      if (!topic || /[+#]/.test(topic))
        throw new Invalid({ topic: 'a relative topic without wildcards' })
      const taskID = await meta.tasks.create(a.tenant, a.userIntID, 'group_publish')
      const input = {
        tenantID: a.tenant,
        taskID,
        groupIntID: g.id,
        groupID: g.groupID,
        groupName: g.groupName,
        topic: needAck === 0 ? groupRelative(g.groupID) : topic,
        payload: r.payload,
        qos,
        timeoutMs,
        expiresAt: ttlMs > 0 ? t + ttlMs : null,
        needAck,
        status: needAck === 0 ? 'sent' : 'queued',
        scheduleID: opts.scheduleID ?? null,
        publishUser: a.username ?? null,
        userIntID: a.userIntID,
      } as const
      const event = commandEventOf(
        {
          ...input,
          deviceIntID: null,
          deviceID: null,
          parentID: null,
          scheduleID: input.scheduleID,
        },
        input.status,
        needAck === 0 ? 3 : 1,
        t,
      )
      const group = await meta.commands.createGroup(input, [outboxOf('command.status', event, t)])
      d.dispatcher.announce([group])
      if (needAck === 0) {
        await meta.tasks.markRunning(taskID)
        const product = await meta.products.get(a.tenant, g.productIntID)
        const full = groupTopic(
          {
            cloudProtocol: product.cloudProtocol,
            tenantID: a.tenant,
            productID: g.productID,
          },
          g.groupID,
        )
        const ok = await d.broker.publishTopic(full, envelope(taskID, r.payload))
        if (!ok) await d.dispatcher.move(group, ['sent'], 'unsent')
        await meta.tasks.finish(taskID, JSON.stringify({ published: ok }))
        return { taskID, statusUrl: `/task_status/${taskID}` }
      }
      await meta.tasks.markRunning(taskID)
      await fanOut(group, r.ratePerSecond)
      return { taskID, statusUrl: `/task_status/${taskID}` }
    },

    /**
     * Picks up the group commands a stopped process left with members still moving, and writes the members of
     * those it left before they were written (the group row still `queued`, no member stored).
     */
    async resume() {
      events.on('command.status', onStatus)
      for (const g of await meta.commands.openGroups()) {
        open.set(g.id, { tenant: g.tenantID, taskID: g.taskID })
        if (g.commandStatus === 'queued' && (await meta.commands.groupCounts(g.id, 0)).total === 0)
          await fanOut(g, undefined)
        dirty.add(g.id)
      }
      if (dirty.size) timer ??= setTimeout(flush, PROGRESS_MS)
      recheck = setInterval(() => {
        for (const id of awaiting) dirty.add(id)
        if (dirty.size) timer ??= setTimeout(flush, PROGRESS_MS)
      }, RECHECK_MS).unref()
    },

    close() {
      events.off('command.status', onStatus)
      if (timer) clearTimeout(timer)
      if (recheck) clearInterval(recheck)
    },
  }
}
