import { z } from 'zod'
import { Str, annotate, responseSchema } from './common.ts'
import { DELIVERY_TABLE, OUTBOX_TYPES, WEBHOOK_TABLE } from '../../store/fields/webhooks.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

const EventType = z.enum(OUTBOX_TYPES, { error: `must be one of ${OUTBOX_TYPES.join(', ')}` })

/** A webhook as lists and details show it (never its secret). */
export const Webhook = responseSchema(WEBHOOK_TABLE, 'id url events enable createAt updateAt', {
  events: z.array(Str),
})

/** The create answer: the record and its generated secret, shown this once. */
export const WebhookCreated = Webhook.extend({ secret: Str })

const octet = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
const label = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?'
const h16 = '[0-9A-Fa-f]{1,4}'
const ipv4 = `${octet}(?:\\.${octet}){3}`
/** An IPv6 literal in brackets, in every form RFC 4291 allows (compressed, IPv4 in the last 32 bits). */
const ipv6 = `\\[(?:${[
  `(?:${h16}:){7}${h16}`,
  `(?:${h16}:){1,7}:`,
  `(?:${h16}:){1,6}:${h16}`,
  `(?:${h16}:){1,5}(?::${h16}){1,2}`,
  `(?:${h16}:){1,4}(?::${h16}){1,3}`,
  `(?:${h16}:){1,3}(?::${h16}){1,4}`,
  `(?:${h16}:){1,2}(?::${h16}){1,5}`,
  `${h16}:(?::${h16}){1,6}`,
  `:(?:(?::${h16}){1,7}|:)`,
  `(?:${h16}:){6}${ipv4}`,
  `(?:${h16}:){0,5}:${ipv4}`,
  `::(?:${h16}:){0,5}${ipv4}`,
].join('|')})\\]`
const userinfo = "(?:[A-Za-z0-9._~!$&'()*+,;=-]+(?::[A-Za-z0-9._~!$&'()*+,;=-]*)?@)?"
const port =
  '(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?'
/**
 * A webhook URL: http(s), an optional user:password, an IPv4 address, an IPv6 literal in brackets or a host name
 * whose last label starts with a letter, a port up to 65535, then printable ASCII. src/rules/webhooks.ts then
 * refuses what `new URL` does not parse and the hosts not allowed (link-local, unspecified, private ones).
 */
const WEBHOOK_URL = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://${userinfo}(?:${octet}(?:\\.${octet}){3}|${ipv6}|(?:${label}\\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)${port}(?:[/?#][!-~]*)?$`,
)

/** `url` http(s) (link-local and unspecified hosts refused, private ones unless WEBHOOK_ALLOW_PRIVATE); `events` default all six; `enable` 0/1 default 1. */
export const WebhookCreate = requestSchema(WEBHOOK_TABLE, {
  url: z
    .string({ error: 'required' })
    .min(1, 'required')
    .max(2000, 'at most 2000 characters')
    .regex(WEBHOOK_URL, 'must be an http or https URL'),
  events: z.array(EventType).optional(),
  enable: z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }).optional(),
})
annotate(WebhookCreate, {
  examples: [
    {
      url: 'https://hooks.example.com/devicecloud',
      events: ['alert.raised', 'command.status'],
      enable: 1,
    },
  ],
})
export const WebhookUpdate = WebhookCreate

/** One delivery of an event to a webhook. */
export const WebhookDelivery = responseSchema(
  DELIVERY_TABLE,
  'id eventID type status attempts responseCode durationMs lastError nextTryAt createAt updateAt',
  { status: Str },
)

/** One delivery with the body it sends, exactly as signed (`{id, type, time, tenantID, data}` as JSON text). */
export const WebhookDeliveryDetail = WebhookDelivery.extend({
  body: z.string().meta({ description: 'the request body sent (and signed), as JSON text' }),
})

/** List filters: url, enable (store/fields/webhooks.ts). */
export const webhookFilters = filterFields(WEBHOOK_TABLE)
/** Delivery filters: status, eventID, type. */
export const deliveryFilters = filterFields(DELIVERY_TABLE)

const STREAM_TYPES = [...OUTBOX_TYPES, 'telemetry'] as string[]

/** `types=` (comma list of event types and `telemetry`), `deviceID=`, `lastEventId=` (resume after it). */
export const StreamQuery = z.object({
  types: z
    .string()
    .optional()
    .transform((s) =>
      s
        ? [
            ...new Set(
              s
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
            ),
          ]
        : [],
    )
    .refine((ts) => ts.every((t) => STREAM_TYPES.includes(t)), {
      error: `must be a comma list of ${STREAM_TYPES.join(', ')}`,
    }),
  deviceID: z.string().min(1).optional(),
  lastEventId: z
    .string()
    .regex(/^\d{1,15}$/, 'must be an event id')
    .optional(),
})

export type WebhookCreate = z.infer<typeof WebhookCreate>
