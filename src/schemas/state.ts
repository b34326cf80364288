/** Device state (README "Desired state"): the document, the patches and the HTTP device's long poll. */
import { z } from 'zod'
import { annotate, Int, intIn, Str, Timestamp } from './common.ts'
import { STATE_LIMITS } from '../rules/state.ts'

const LIMITS =
  `at most ${STATE_LIMITS.bytes / 1024} KiB as compact JSON once merged, ${STATE_LIMITS.depth} levels deep, keys of ` +
  `1 to ${STATE_LIMITS.keyLength} characters not starting with $`

/** A top-level key of a side (the state rules check the keys deeper down, src/rules/state.ts). */
const SideKey = z
  .string()
  .min(1, { error: `a key has 1 to ${STATE_LIMITS.keyLength} characters` })
  .max(STATE_LIMITS.keyLength, { error: `a key has 1 to ${STATE_LIMITS.keyLength} characters` })
  .regex(/^[^$]/, { error: 'a key may not start with $' })

/** A JSON object of a side; its deeper keys, its depth and its merged size are checked by the state rules. */
const SideObject = (what: string) =>
  z
    .record(SideKey, z.unknown(), { error: 'must be a JSON object' })
    .meta({ description: `${what}: a JSON merge patch (RFC 7396; null deletes a key), ${LIMITS}` })

const KeyTimes = z.record(z.string(), z.object({ updatedAt: Timestamp }))

/** A device's state document. */
export const StateDocument = z.object({
  deviceID: Str,
  desired: z.record(z.string(), z.unknown()).meta({ description: 'what the device should be' }),
  reported: z.record(z.string(), z.unknown()).meta({ description: 'what the device says it is' }),
  delta: z.record(z.string(), z.unknown()).meta({
    description:
      'the parts of desired that reported does not hold (deep, key by key); empty once applied',
  }),
  version: Int.meta({ description: 'grows by one with every change of either side' }),
  desiredVersion: Int.meta({ description: 'grows by one with every change of desired' }),
  reportedVersion: Int.meta({ description: 'grows by one with every change of reported' }),
  desiredAt: Timestamp,
  reportedAt: Timestamp,
  metadata: z.object({ desired: KeyTimes, reported: KeyTimes }).meta({
    description: "each side's top-level keys with the time of their last change",
  }),
})
annotate(StateDocument, {
  examples: [
    {
      deviceID: 'thermostat-1',
      desired: { setpoint: 21, mode: 'eco' },
      reported: { setpoint: 19, mode: 'eco', firmware: '1.4.2' },
      delta: { setpoint: 21 },
      version: 7,
      desiredVersion: 3,
      reportedVersion: 4,
      desiredAt: '2026-11-28 09:12:00',
      reportedAt: '2026-11-28 09:10:41',
      metadata: {
        desired: {
          setpoint: { updatedAt: '2026-11-28 09:12:00' },
          mode: { updatedAt: '2026-11-27 18:00:03' },
        },
        reported: {
          setpoint: { updatedAt: '2026-11-28 09:10:41' },
          mode: { updatedAt: '2026-11-27 18:00:09' },
          firmware: { updatedAt: '2026-11-20 07:33:15' },
        },
      },
    },
  ],
})

/** PATCH /devices/{id}/state. */
export const DesiredPatch = z.object({
  desired: SideObject('the change of desired'),
  version: z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must be 0 or more' })
    .optional()
    .meta({
      description:
        'the desiredVersion this patch was based on: when it is no longer the current one, 409 VERSION_CONFLICT ' +
        'and nothing changes',
    }),
})
annotate(DesiredPatch, { examples: [{ desired: { setpoint: 21, schedule: null }, version: 2 }] })

/** PATCH /groups/{id}/state and /products/{id}/state. */
export const ScopePatch = z.object({ desired: SideObject('the change of desired') })
annotate(ScopePatch, { examples: [{ desired: { mode: 'eco' } }] })

/** POST /ingest/state (an HTTP device). */
export const ReportBody = z.object({ reported: SideObject('the change of reported') })
annotate(ReportBody, { examples: [{ reported: { setpoint: 21, firmware: '1.4.2' } }] })

/** GET /ingest/state: the long poll. */
export const StateWaitQuery = z.object({
  wait: z
    .preprocess((v) => (typeof v === 'string' && /^\d{1,2}$/.test(v) ? Number(v) : v), intIn(0, 30))
    .optional()
    .meta({
      description: 'seconds to wait for a desiredVersion above `after` (0 to 30, default 0)',
    }),
  after: z
    .preprocess(
      (v) => (typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v),
      z
        .number({ error: 'must be an integer of 0 or more' })
        .int({ error: 'must be an integer of 0 or more' })
        .min(0, { error: 'must be an integer of 0 or more' })
        .max(Number.MAX_SAFE_INTEGER, { error: `at most ${Number.MAX_SAFE_INTEGER}` }),
    )
    .optional()
    .meta({ description: 'the desiredVersion the device holds (default 0)' }),
})

/** The task a group's or product's patch answers. */
export const StateTask = z.object({ statusUrl: Str, taskID: Str })

/** The section of the API description (/docs) on device state, with a worked example. */
export const DEVICE_STATE = [
  '## Device state: desired and reported',
  'Every device has one state document: `desired` (what it should be, written through the API), `reported` (what ' +
    'it says it is, written by the device) and `delta`, the parts of `desired` that `reported` does not hold yet. ' +
    'Both sides change by JSON merge patches (RFC 7396): objects merge key by key, `null` deletes a key, arrays and ' +
    `other values replace. Limits: ${LIMITS}; a larger side is 413, a bad key 422 naming it. ` +
    '`version` grows with every change, `desiredVersion` and `reportedVersion` with their side; a patch that changes ' +
    'nothing moves no version. `GET /api/v1/devices?stateDelta=1` lists the devices that have not applied their ' +
    'desired state.',
  'Worked example. The document is `{"desired":{}, "reported":{"setpoint":19,"mode":"eco"}, "delta":{}, ' +
    '"desiredVersion":0}`. An operator sends `PATCH /api/v1/devices/7/state` with `{"desired":{"setpoint":21,' +
    '"mode":"eco"},"version":0}`: the answer has `"delta":{"setpoint":21}` and `"desiredVersion":1`, the device list ' +
    'shows `stateDelta` 1, and the device receives on `state/delta` ' +
    '`{"desired":{"setpoint":21,"mode":"eco"},"delta":{"setpoint":21},"version":…,"desiredVersion":1}` (at once if it ' +
    'is connected, or within a second of subscribing when it comes back). A second operator who also read version 0 ' +
    'and now sends `{"desired":{"setpoint":18},"version":0}` gets 409 VERSION_CONFLICT: they read the document again ' +
    'and decide. The device applies the setpoint and publishes `{"setpoint":21}` on `state/reported`: the delta is ' +
    'empty, `stateDelta` is 0, and an empty delta is pushed. `{"desired":{"mode":null}}` then deletes mode.',
  'Devices (topics relative to their prefix): publish `state/reported` with a merge patch of `reported` (or ' +
    '`{"reported":{…},"clientToken":"…"}`, answered on `state/document`), publish `state/get` (`{"clientToken":"…"}` ' +
    'or empty) to receive the whole document on `state/document`, and subscribe to `state/delta`. HTTP devices: ' +
    '`GET /api/v1/ingest/state?wait=30&after=<desiredVersion>` and `POST /api/v1/ingest/state`. Every change is a ' +
    '`device.state` event (webhooks, the live stream).',
].join('\n\n')
