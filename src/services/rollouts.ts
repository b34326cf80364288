/**
 * Firmware rollouts (README "Firmware"): made, paused, resumed and canceled through the API, and changed by the
 * devices' reports on `ota/progress`. The pace, the timeouts, the threshold and the end are the engine's
 * (rollout-engine.ts); the messages to devices are ota-delivery.ts's. Every change is stored with its outbox
 * events in one transaction, then announced on the bus.
 */
import { Invalid, NotFound } from '../kernel/errors.ts'
import type { EventBus } from '../kernel/events.ts'
import type { MetaStore, RolloutInput } from '../../store/types.ts'
import type { RolloutCreate, OtaProgress } from '../schemas/rollouts.ts'
import {
  afterFailure,
  isOpen,
  mayReport,
  type OtaStatus,
  type RolloutStatus,
} from '../rules/rollout.ts'
import { groupOf } from './group-commands.ts'
import type { DeviceIdentity } from './ports.ts'
import type { Actor } from './types.ts'

export interface RolloutDeps {
  meta: MetaStore
  events: EventBus
  now: () => number
}

/** The tenant's package `firmwareID`, or NotFound naming it. */
async function firmwareOf(meta: MetaStore, tenant: string, firmwareID: string) {
  const filters = [{ field: 'firmwareID', op: 'eq' as const, value: firmwareID }]
  const { items } = await meta.firmware.list(tenant, { page: 1, limit: 1, filters })
  if (!items[0]) throw new NotFound('firmwareID', 'no such firmware')
  return items[0]
}

/** The rollout's target as stored: the devices named (all of the package's product), a group of it, or all. */
async function targetOf(
  meta: MetaStore,
  tenant: string,
  productIntID: number,
  b: RolloutCreate,
): Promise<RolloutInput['target']> {
  if (b.deviceIDs) {
    const wanted = [...new Set(b.deviceIDs)]
    const found = await meta.rollouts.devicesOf(tenant, wanted)
    const known = new Set(found.map((d) => d.deviceID))
    const missing = wanted.filter((id) => !known.has(id))
    if (missing.length)
      throw new NotFound('deviceIDs', `no device ${missing.slice(0, 20).join(', ')}`)
    const foreign = found.filter((d) => d.productIntID !== productIntID).map((d) => d.deviceID)
    if (foreign.length)
      throw new Invalid(
        'deviceIDs',
        `not devices of the package's product: ${foreign.slice(0, 20).join(', ')}`,
      )
    return { kind: 'devices', deviceIntIDs: found.map((d) => d.id) }
  }
  if (b.groupID !== undefined) {
    const g = await groupOf(meta, tenant, { groupID: b.groupID })
    if (g.productIntID !== productIntID)
      throw new Invalid('groupID', "the group's product is not the package's product")
    return { kind: 'group', groupIntID: g.id }
  }
  return { kind: 'product' }
}

/** What a device's report does to its row: the next state, or why it is refused. */
function reportOutcome(
  row: { status: OtaStatus; attempt: number; retries: number },
  r: OtaProgress,
): { status: OtaStatus } | { refused: string } {
  if (!mayReport(row.status, r.status))
    return {
      refused:
        row.status === 'queued'
          ? 'the device is waiting for its next attempt: report after the next ota/notify'
          : `the device's state is ${row.status}: ${r.status} cannot follow it`,
    }
  if (r.status === 'failed') return { status: afterFailure(row.attempt, row.retries, 'failed') }
  return { status: r.status }
}

/** A device's report, stored against the row it was read with (read again when the row changed meanwhile). */
async function deviceReport(
  { meta, events, now }: RolloutDeps,
  device: DeviceIdentity,
  r: OtaProgress,
): Promise<string | undefined> {
  for (let tries = 0; tries < 3; tries++) {
    const row = await meta.rollouts.row(device.tenantID, r.rolloutID, device.id)
    if (!row) return `${r.rolloutID}: no such rollout for this device`
    const outcome = reportOutcome(row, r)
    if ('refused' in outcome) return outcome.refused
    const t = now()
    const changed = await meta.rollouts.report(
      {
        rolloutIntID: row.rolloutIntID,
        deviceIntID: device.id,
        expected: { status: row.status, attempt: row.attempt },
        status: outcome.status,
        progress: r.status === 'updated' ? 100 : (r.progress ?? null),
        error: r.status === 'failed' ? (r.error ?? 'failed') : null,
        // the first sign of a delivery the row did not record (a notification retained by an external broker)
        ...(row.deliveredAt === null
          ? { deliveredAt: t, deadline: t + row.timeoutMinutes * 60_000 }
          : {}),
        ...(r.status === 'updated' ? { softVersion: row.version } : {}),
      },
      t,
    )
    if (changed) {
      const deviceIntIDs = [device.id]
      events.emit('firmware.device', {
        tenantID: device.tenantID,
        rolloutIntID: row.rolloutIntID,
        deviceIntIDs,
      })
      return undefined
    }
    // the row changed meanwhile (a timeout, a cancel): read it again
  }
  return 'the device changed state meanwhile: report again'
}

export function rolloutService({ meta, events, now }: RolloutDeps) {
  const announce = (tenantID: string, rolloutIntID: number) =>
    events.emit('firmware.rollout', { tenantID, rolloutIntID })

  /** Moves the tenant's rollout from one of `from` to `to`, or says why it cannot. */
  async function move(a: Actor, id: number, from: readonly RolloutStatus[], to: RolloutStatus) {
    await meta.rollouts.get(a.tenant, id) // NotFound for another tenant's
    if (!(await meta.rollouts.setStatus(a.tenant, id, from, to, now()))) {
      const current = (await meta.rollouts.get(a.tenant, id)).status
      throw new Invalid(
        'status',
        `the rollout is ${current}: only a ${from.join(' or ')} rollout can be ${to}`,
      )
    }
    announce(a.tenant, id)
    return meta.rollouts.get(a.tenant, id)
  }

  return {
    /** Makes a rollout of the tenant's package to its target; NotFound / Invalid name the field at fault. */
    async create(a: Actor, b: RolloutCreate) {
      const fw = await firmwareOf(meta, a.tenant, b.firmwareID)
      const input: RolloutInput = {
        firmwareIntID: fw.id,
        firmwareID: fw.firmwareID,
        version: fw.version,
        productIntID: fw.productIntID,
        target: await targetOf(meta, a.tenant, fw.productIntID, b),
        fromVersions: b.fromVersions ? [...new Set(b.fromVersions)] : null,
        ratePerMinute: b.ratePerMinute,
        rampUp: b.rampUp ?? null,
        abortFailedPercent: b.abortFailedPercent ?? null,
        abortMinFinished: b.abortMinFinished,
        timeoutMinutes: b.timeoutMinutes,
        retries: b.retries,
        userIntID: a.userIntID,
      }
      if ((await meta.rollouts.targetCount(a.tenant, input)) === 0)
        throw new Invalid(
          'target',
          b.fromVersions
            ? 'no device of the target has one of fromVersions'
            : 'the target has no device',
        )
      const id = await meta.rollouts.create(a.tenant, input, now())
      announce(a.tenant, id)
      return meta.rollouts.get(a.tenant, id)
    },

    /** Stops notifying devices (those notified go on); a running rollout only. */
    pause: (a: Actor, id: number) => move(a, id, ['running'], 'paused'),
    /** Notifies devices again, at the pace, from now; a paused rollout only. */
    resume: (a: Actor, id: number) => move(a, id, ['paused'], 'running'),

    /** Cancels a running or paused rollout: queued devices are canceled, notified ones sent `ota/cancel`. */
    async cancel(a: Actor, id: number) {
      const r = await meta.rollouts.get(a.tenant, id)
      if (!isOpen(r.status)) throw new Invalid('status', `the rollout is ${r.status} already`)
      if (!(await meta.rollouts.stop(a.tenant, id, 'canceled', now())))
        throw new Invalid('status', 'the rollout ended meanwhile')
      announce(a.tenant, id)
      events.emit('firmware.device', { tenantID: a.tenant, rolloutIntID: id, deviceIntIDs: [] })
      return meta.rollouts.get(a.tenant, id)
    },

    /**
     * A device's report on `ota/progress`: undefined once stored, else why it is refused. `updated` sets the
     * device's softVersion; `failed` queues the device again while retries remain.
     */
    report: (device: DeviceIdentity, r: OtaProgress) =>
      deviceReport({ meta, events, now }, device, r),

    /** Announces a change the engine stored. */
    announce,
    devicesChanged: (tenantID: string, rolloutIntID: number, deviceIntIDs: readonly number[]) =>
      events.emit('firmware.device', { tenantID, rolloutIntID, deviceIntIDs }),
  }
}

export type RolloutService = ReturnType<typeof rolloutService>
