import { z } from 'zod'
import { Int, Str, Timestamp } from './common.ts'
import {
  COMMAND_RESPONSE,
  EVENT_UPLINK,
  GATEWAY_UPLINK,
  PLAIN_UPLINK,
  UPLINK_FORMS,
} from './device-payloads.ts'

/** Most messages in one `POST /api/v1/ingest`. */
export const MAX_INGEST_MESSAGES = 10_000

/**
 * One uplink message of HTTP ingest. `deviceID` is required for API callers (a device of their
 * tenant) and optional with device credentials (the device itself, or a child device of the gateway).
 * `payload` is any uplink form: a JSON object, or the payload's JSON text.
 */
export const IngestMessage = z.object({
  deviceID: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .optional(),
  topic: z
    .string({ error: 'required, a string' })
    .min(1, { error: 'must not be empty' })
    .max(1000, { error: 'at most 1000 characters' })
    // eslint-disable-next-line no-control-regex -- a NUL is refused with the wildcards
    .refine((t) => !/[+#\u0000]/.test(t), { error: 'must not contain wildcards' }),
  payload: z.unknown().refine((v) => v !== undefined && v !== null, {
    error: 'required: an uplink payload (object or JSON text)',
  }),
})
export type IngestMessage = z.infer<typeof IngestMessage>

/** Why one message of a request was not (fully) stored. `index` is its position (0-based; NDJSON: non-empty line). */
export const IngestRejection = z.object({ index: Int, errorCode: Str, message: Str })

/**
 * `accepted`: how many data point values were stored. `rejected`: one entry per message not fully stored (bad
 * shape, unknown or foreign device, no data stream for the topic, values of unknown data points or of the wrong
 * type, queue full), naming its first error code and every reason.
 */
export const IngestReply = z.object({ accepted: Int, rejected: z.array(IngestRejection) })

/** The last value of one data point of a device (GET /devices/{deviceIntID}/latest). */
export const LatestValue = z.object({
  dataPointIntID: Int,
  dataPointID: Str,
  dataPointName: Str,
  pointDataType: Int,
  unit: Str.nullable().meta({
    description: "the data point's unit symbol, else its unit name (null: none)",
  }),
  time: Timestamp,
  value: z.union([z.number(), z.string(), z.boolean()]).nullable(),
})
export const LatestValues = z.array(LatestValue)

/** Most deviceIDs one `GET /devices_latest` takes. */
export const MAX_LATEST_DEVICES = 1000
const DEVICE_IDS_REQUIRED = 'required: deviceIDs separated by commas'

/** `GET /devices_latest?deviceIDs=a,b`: 1 to MAX_LATEST_DEVICES deviceIDs (repeats count once). */
export const DevicesLatestQuery = z.object({
  deviceIDs: z
    .string({ error: DEVICE_IDS_REQUIRED })
    // at least one character other than commas and spaces (the document says so too)
    .regex(/[^,\s]/, { error: DEVICE_IDS_REQUIRED })
    .meta({ description: `deviceIDs separated by commas, at most ${MAX_LATEST_DEVICES}` })
    .transform((s) => [...new Set(s.split(',').map((id) => id.trim()))].filter(Boolean))
    .refine((ids) => ids.length > 0, { error: DEVICE_IDS_REQUIRED })
    .refine((ids) => ids.length <= MAX_LATEST_DEVICES, {
      error: `at most ${MAX_LATEST_DEVICES} deviceIDs`,
    }),
})

/** The last values of many devices: each found device as GET /devices/{id}/latest answers it. */
export const DevicesLatest = z.object({
  devices: z.record(z.string(), LatestValues).meta({
    description:
      "deviceID → every data point of the device's product with its last value and time (null when none)",
  }),
  notFound: z.array(Str).meta({
    description:
      "the deviceIDs asked for that are no device of the caller's tenant (unknown or another's)",
  }),
})

/**
 * What `POST /ingest` itself refuses: a body that is not a JSON object (400), or `messages` that is not an array of
 * at most MAX_INGEST_MESSAGES (422). Each message is then checked against IngestMessage on its own and, when it
 * fails, listed in the answer's `rejected`; so the message fields are documented here, not enforced.
 */
export const IngestBody = z
  .looseObject({
    deviceID: z.unknown().optional(),
    topic: z.unknown().optional(),
    payload: z.unknown().optional(),
    messages: z.array(z.unknown()).max(MAX_INGEST_MESSAGES).optional(),
  })
  .meta({
    description:
      'One message {deviceID?, topic, payload} (deviceID required with API credentials; topic a relative or full ' +
      'mountpoint topic without wildcards; payload a JSON object or its JSON text), or {"messages": [...]} of them.' +
      `\n\nThe payload is one of the uplink forms:\n\n${UPLINK_FORMS}`,
    examples: [
      { deviceID: 'thermometer-1', topic: 'telemetry', payload: PLAIN_UPLINK },
      {
        messages: [
          { deviceID: 'thermometer-1', topic: 'telemetry', payload: EVENT_UPLINK },
          { deviceID: 'gateway-1', topic: 'telemetry', payload: GATEWAY_UPLINK },
          { deviceID: 'thermometer-1', topic: 'telemetry', payload: COMMAND_RESPONSE },
        ],
      },
    ],
  })
