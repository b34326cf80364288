/** Firmware rollouts (README "Firmware"): the request, the record, its devices and a device's report. */
import { z } from 'zod'
import { annotate, intIn, Int, responseSchema } from './common.ts'
import { enumDoc } from '../enums.ts'
import {
  OTA_STATUSES,
  ROLLOUT_DEVICE_TABLE,
  ROLLOUT_STATUSES,
  ROLLOUT_TABLE,
} from '../../store/fields/rollouts.ts'
import { filterFields } from '../../store/fields/table.ts'
import { REPORTED_STATUSES } from '../rules/rollout.ts'

const id = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(64, { error: 'at most 64 characters' })

/** `POST /firmware_rollouts`: the package, one target, the pace and the limits. */
export const RolloutCreate = z
  .object({
    firmwareID: id.meta({ description: "the package's firmwareID" }),
    deviceIDs: z
      .array(id, { error: 'must be an array of deviceIDs' })
      .min(1, { error: 'at least one deviceID' })
      .max(10_000, { error: 'at most 10,000 deviceIDs (target a group or the product beyond)' })
      .optional(),
    groupID: id.optional().meta({ description: "a group of the package's product" }),
    productWide: z
      .literal(true, { error: 'must be true when given' })
      .optional()
      .meta({ description: "every device of the package's product" }),
    fromVersions: z
      .array(id, { error: 'must be an array of versions' })
      .min(1, { error: 'at least one version' })
      .max(100, { error: 'at most 100 versions' })
      .optional()
      .meta({
        description: 'only devices whose softVersion is one of these (when the rollout is made)',
      }),
    ratePerMinute: intIn(1, 10_000)
      .default(100)
      .meta({ description: 'devices notified a minute at most, spread evenly' }),
    rampUp: z
      .object(
        {
          startPerMinute: intIn(1, 10_000),
          factor: z
            .number({ error: 'must be a number from 1.1 to 5' })
            .min(1.1, { error: 'must be a number from 1.1 to 5' })
            .max(5, { error: 'must be a number from 1.1 to 5' }),
          every: intIn(1, 1_000_000).meta({ description: 'devices updated between two rises' }),
        },
        { error: 'must be {startPerMinute, factor, every}' },
      )
      .optional()
      .meta({
        description:
          'start at startPerMinute and multiply the rate by factor each `every` devices updated, up to ratePerMinute',
      }),
    abortFailedPercent: intIn(1, 100)
      .optional()
      .meta({ description: 'abort once this share of the finished devices failed or timed out' }),
    abortMinFinished: intIn(1, 1_000_000)
      .default(10)
      .meta({ description: 'devices finished before the threshold applies' }),
    timeoutMinutes: intIn(1, 10_080)
      .default(60)
      .meta({ description: "a device's time from its notification to its outcome" }),
    retries: intIn(0, 3)
      .default(0)
      .meta({ description: 'new attempts for a device that failed or timed out' }),
  })
  .refine(
    (b) =>
      [b.deviceIDs !== undefined, b.groupID !== undefined, b.productWide === true].filter(Boolean)
        .length === 1,
    {
      error: 'exactly one target: deviceIDs, groupID or productWide',
      path: ['target'],
      when: (p) => typeof p.value === 'object' && p.value !== null,
    },
  )
  .meta({
    examples: [
      {
        firmwareID: 'fW3kq9Zp',
        groupID: 'g-lobby',
        fromVersions: ['1.4.1'],
        ratePerMinute: 100,
        rampUp: { startPerMinute: 10, factor: 2, every: 20 },
        abortFailedPercent: 20,
        abortMinFinished: 10,
        timeoutMinutes: 60,
        retries: 1,
      },
    ],
  })

export type RolloutCreate = z.output<typeof RolloutCreate>

const Counts = z.record(z.string(), Int).meta({
  description:
    'devices by state: queued, notified, downloading, ..., updated, failed, timed_out, canceled',
})

/** A firmware rollout. */
export const Rollout = responseSchema(
  ROLLOUT_TABLE,
  [
    'id rolloutID firmwareID version productID productIntID productName target groupID groupIntID groupName',
    'fromVersions ratePerMinute',
    'rampUp abortFailedPercent abortMinFinished timeoutMinutes retries status statusLabel total counts finishedAt',
    'createUser createAt updateAt',
  ],
  { counts: Counts, status: z.enum(ROLLOUT_STATUSES).meta(enumDoc('rolloutStatus')) },
)
annotate(Rollout, {
  examples: [
    {
      id: 2,
      rolloutID: 'rQ7d2LmA',
      firmwareID: 'fW3kq9Zp',
      version: '1.4.2',
      productID: 'pT8kZ3',
      productIntID: 1,
      productName: 'Thermostat',
      target: 'group',
      groupID: 'g-lobby',
      groupIntID: 4,
      groupName: 'Lobby',
      fromVersions: ['1.4.1'],
      ratePerMinute: 100,
      rampUp: { startPerMinute: 10, factor: 2, every: 20 },
      abortFailedPercent: 20,
      abortMinFinished: 10,
      timeoutMinutes: 60,
      retries: 1,
      status: 'running',
      statusLabel: 'Running',
      total: 40,
      counts: {
        queued: 25,
        notified: 2,
        downloading: 3,
        downloaded: 0,
        verifying: 0,
        updating: 1,
        updated: 8,
        failed: 1,
        timed_out: 0,
        canceled: 0,
      },
      finishedAt: null,
      createUser: 'admin',
      createAt: '2026-11-28 09:00:00',
      updateAt: '2026-11-28 09:04:10',
    },
  ],
})

/** One device of a rollout (also a row of a device's firmware history). */
export const RolloutDevice = responseSchema(
  ROLLOUT_DEVICE_TABLE,
  [
    'rolloutIntID rolloutID firmwareID version rolloutStatus rolloutStatusLabel deviceIntID deviceID deviceName',
    'softVersion fromVersion status statusLabel attempt progress error notifiedAt deliveredAt updateAt',
  ],
  { status: z.enum(OTA_STATUSES).meta(enumDoc('otaStatus')) },
)

/** The versions a product's devices run, with their counts (`GET /products/{id}/soft_versions`). */
export const SoftVersions = z
  .array(z.object({ softVersion: z.string().nullable(), count: Int }))
  .meta({
    examples: [
      [
        { softVersion: '1.4.2', count: 812 },
        { softVersion: '1.4.1', count: 180 },
        { softVersion: null, count: 8 },
      ],
    ],
  })

/** Filters of a rollout list: rolloutID, firmwareID, version, productID, target, status. */
export const rolloutFilters = filterFields(ROLLOUT_TABLE)
/** Filters of a rollout's devices (and a device's history): rolloutID, deviceID, deviceName, status. */
export const rolloutDeviceFilters = filterFields(ROLLOUT_DEVICE_TABLE)

/** What a device reports on `ota/progress`. */
export const OtaProgress = z.object({
  rolloutID: id,
  status: z.enum(REPORTED_STATUSES, { error: `must be one of ${REPORTED_STATUSES.join(', ')}` }),
  progress: intIn(0, 100).optional(),
  error: z
    .string({ error: 'must be a string' })
    .max(500, { error: 'at most 500 characters' })
    .optional(),
})
export type OtaProgress = z.output<typeof OtaProgress>

/** What a device asks on `ota/chunk/get`: `length` bytes of a package from `offset`. */
export const OtaChunkRequest = z.object({
  firmwareID: id,
  offset: z.number({ error: 'must be an integer >= 0' }).int().min(0, { error: 'must be >= 0' }),
  length: intIn(1, 65_536),
})
