/**
 * The steps of a command to a group (src/services/group-commands.ts composes them): the topic a request names, the
 * group's own row, its members' rows and their pacing, and what the members' counts make of the group's task.
 */
import { Invalid } from '../kernel/errors.ts'
import { groupRelative } from '../kernel/topics.ts'
import type {
  CommandInput,
  CommandRecord,
  CommandStatus,
  GroupCommandInput,
  GroupCounts,
  GroupMemberRecord,
  GroupProgress,
  GroupRecord,
} from '../../store/types.ts'
import { newTaskID } from './command-dispatch.ts'
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

/** A settled group's outcome: every member succeeded or was delivered, none did, or some did. */
export function groupOutcome(c: GroupProgress): CommandStatus {
  if (c.failed === 0) return 'succeeded'
  return c.failed === c.total ? 'failed' : 'partial'
}

/** The topic a group request names, relative (default `inbox`); FORM_INVALID errors.topic with a wildcard or none. */
export function groupRequestTopic(r: Pick<GroupCommandRequest, 'topic'>): string {
  const topic = (r.topic ?? 'inbox').replace(/^\/+/, '')
  if (!topic || /[+#]/.test(topic))
    throw new Invalid({ topic: 'a relative topic without wildcards' })
  return topic
}

/** A group command's own row as it is stored (its scheduleID always set: null when not a schedule's). */
export type GroupCommandRow = GroupCommandInput & {
  status: 'sent' | 'queued'
  scheduleID: number | null
}

/**
 * The group's own row: with needAck 0 (QoS 0), one publish to the group topic, `sent` at once; with needAck 1
 * (default), `queued` until its members are stored, on the request's relative `topic`.
 */
export function groupCommandRow(
  a: Actor,
  g: Pick<GroupRecord, 'id' | 'groupID' | 'groupName'>,
  r: GroupCommandRequest,
  p: { t: number; taskID: string; topic: string; defaultTimeout: number; scheduleID?: number },
): GroupCommandRow {
  const needAck = r.needAck ?? 1
  const ttlMs = (r.ttl ?? 0) * 1000
  return {
    tenantID: a.tenant,
    taskID: p.taskID,
    groupIntID: g.id,
    groupID: g.groupID,
    groupName: g.groupName,
    topic: needAck === 0 ? groupRelative(g.groupID) : p.topic,
    payload: r.payload,
    qos: needAck === 0 ? 0 : (r.qos ?? 1),
    timeoutMs: (r.timeout ?? p.defaultTimeout) * 1000,
    expiresAt: ttlMs > 0 ? p.t + ttlMs : null,
    needAck,
    status: needAck === 0 ? 'sent' : 'queued',
    scheduleID: p.scheduleID ?? null,
    publishUser: a.username ?? null,
    userIntID: a.userIntID,
  }
}

/** What a group's row gives its members. */
export type GroupRowFields = Pick<
  CommandRecord,
  | 'id'
  | 'tenantID'
  | 'topic'
  | 'payload'
  | 'qos'
  | 'timeoutMs'
  | 'expiresAt'
  | 'groupIntID'
  | 'groupID'
  | 'groupName'
  | 'scheduleID'
  | 'publishUser'
  | 'userIntID'
>

/**
 * The members' commands of a needAck 1 group command, queued with the group's fields; at `rate` a second they are
 * due one after another (member i at t + i/rate seconds), without one all at `t`.
 */
export function memberRows(
  group: GroupRowFields,
  members: readonly Pick<GroupMemberRecord, 'id' | 'deviceID' | 'deviceName'>[],
  t: number,
  rate: number | undefined,
): CommandInput[] {
  return members.map((m, i) => ({
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
}

/** What a group's task shows: its progress while members move, its outcome once every member settled. */
export type GroupReport =
  | { done: false; pct: number; message: string; awaiting: boolean; counts: GroupCounts }
  | { done: true; message: string; outcome: CommandStatus; counts: GroupCounts }

/**
 * The report of a group's counts: the share of members settled; `awaiting` when some are delivered and not yet
 * settled (they settle when their timeout passes, with no event, so the group is looked at again until then).
 */
export function groupReport(p: GroupProgress): GroupReport {
  const { settled, ...counts } = p
  const message = `${settled} of ${counts.total} members settled`
  if (settled < counts.total) {
    const pct = counts.total ? Math.floor((100 * settled) / counts.total) : 100
    const awaiting = counts.total - counts.pending > settled
    return { done: false, pct, message, awaiting, counts }
  }
  const outcome = groupOutcome({ ...counts, settled })
  return { done: true, message: `${message}: ${outcome}`, outcome, counts }
}
