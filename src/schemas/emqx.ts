import { z } from 'zod'
import { annotate } from './common.ts'

/**
 * Bodies EMQX 5 sends to the hooks of src/routes/emqx.ts (the body templates of docs/external-broker.md).
 * EMQX fills an absent placeholder with an empty string, so every text field accepts ''.
 */
const Text = z.string().max(65_535)

/** HTTP authenticator: `{"clientid": "${clientid}", "username": "${username}", "password": "${password}", ...}`. */
export const EmqxAuth = z.object({
  clientid: Text,
  username: Text.optional(),
  password: Text.optional(),
  peerhost: Text.optional(),
  cert_common_name: Text.optional(),
})
annotate(EmqxAuth, {
  examples: [
    {
      clientid: 'thermometer-1',
      username: 'thermometer-1',
      password: '<token>',
      peerhost: '10.0.0.7',
    },
  ],
})

/** HTTP authorizer: `{"clientid": "${clientid}", "username": "${username}", "topic": "${topic}", "action": "${action}"}`. */
export const EmqxAcl = z.object({
  clientid: Text,
  username: Text.optional(),
  topic: Text.min(1),
  action: z.enum(['publish', 'subscribe']),
})
annotate(EmqxAcl, {
  examples: [
    { clientid: 'thermometer-1', username: 'thermometer-1', topic: 'telemetry', action: 'publish' },
  ],
})

/** Rule engine / webhook event (`SELECT * FROM "$events/client_connected", "$events/client_disconnected"`). */
export const EmqxEvent = z.looseObject({
  event: Text,
  clientid: Text,
  peername: Text.optional(),
  keepalive: z.number().int().min(0).optional(),
  connected_at: z.number().optional(),
  reason: Text.optional(),
})
annotate(EmqxEvent, {
  examples: [
    {
      event: 'client.connected',
      clientid: 'thermometer-1',
      peername: '10.0.0.7:50312',
      keepalive: 60,
      connected_at: 1700000000000,
    },
  ],
})

/** `{"result": "allow" | "deny"}` (EMQX 5 HTTP authenticator and authorizer answer). */
export const EmqxResult = z.object({
  result: z.enum(['allow', 'deny']),
  is_superuser: z.boolean().optional(),
})

export const EmqxAck = z.object({})
export type EmqxEventBody = z.infer<typeof EmqxEvent>
