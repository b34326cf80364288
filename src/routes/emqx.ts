import type { Context, Next } from 'hono'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { safeEqual } from '../kernel/secrets.ts'
import { type EmqxEventBody } from '../schemas/emqx.ts'

const tag = 'EMQX hooks'
export const HOOK_SECRET_HEADER = 'x-hook-secret'
/** Reasons EMQX gives when a session ends because a newer one replaced it (takeover). */
const REPLACED = new Set(['takenover', 'takeovered', 'discarded'])
const description = `Called by an EMQX cluster (MQTT_URL mode, README › External broker), not by API clients. Needs the
header \`X-Hook-Secret: <EMQX_HOOK_SECRET>\` (401 when wrong); answers 404 while EMQX_HOOK_SECRET is unset.`

/** `host:port`, `[v6]:port` or a bare address → the address. */
export function hostOf(peer: string | undefined): string | null {
  if (!peer) return null
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(peer)
  if (v6) return v6[1]!
  const colon = peer.lastIndexOf(':')
  return colon > 0 && peer.indexOf(':') === colon ? peer.slice(0, colon) : peer
}

/** An EMQX event → the session it reports. */
function sessionOf(e: EmqxEventBody) {
  return {
    clientId: e.clientid,
    connectedAt: e.connected_at,
    ip: hostOf(e.peername),
    keepAlive: e.keepalive ?? 0,
  }
}

/**
 * The hooks an EMQX 5 cluster calls for device authentication, authorization (ACL) and client connected /
 * disconnected events. They are public routes guarded by a shared secret (EMQX_HOOK_SECRET); ingest's DeviceGate
 * (the gatekeepers the brokers use) decides.
 */
export function emqxRoutes({ config, gate }: Deps, shapes: WireShapes) {
  const { EmqxAck, EmqxAcl, EmqxAuth, EmqxEvent, EmqxResult } = shapes.emqx
  const r = new Router()
  const serviceAccount = (username?: string) =>
    !!config.MQTT_USERNAME && username === config.MQTT_USERNAME

  r.app.use('/emqx/*', async (c: Context, next: Next) => {
    const secret = config.EMQX_HOOK_SECRET
    if (!secret) throw new ApiError('DATA_NOT_FOUND', { url: `no such path: ${c.req.path}` })
    if (!safeEqual(c.req.header(HOOK_SECRET_HEADER) ?? '', secret))
      throw new ApiError('AUTH_FAILED', { [HOOK_SECRET_HEADER]: 'missing or wrong hook secret' })
    await next()
  })

  const hook = { tag, public: true, description, method: 'post', errors: [401] } as const

  r.typed(
    {
      ...hook,
      path: '/emqx/auth',
      summary: 'EMQX HTTP authenticator',
      body: EmqxAuth,
      response: EmqxResult,
    },
    async (c, { body }) => {
      if (serviceAccount(body.username))
        return c.json({
          result: safeEqual(body.password ?? '', config.MQTT_PASSWORD ?? '') ? 'allow' : 'deny',
          is_superuser: true,
        })
      const ok = await gate.authenticate({
        clientId: body.clientid,
        username: body.username,
        password: body.password,
        certCN: body.cert_common_name || undefined,
        ip: hostOf(body.peerhost),
      })
      return c.json(ok ? { result: 'allow', is_superuser: false } : { result: 'deny' })
    },
  )

  r.typed(
    {
      ...hook,
      path: '/emqx/acl',
      summary: 'EMQX HTTP authorizer',
      body: EmqxAcl,
      response: EmqxResult,
    },
    async (c, { body }) => {
      if (serviceAccount(body.username)) return c.json({ result: 'allow' })
      const ok = await gate.authorize(body.clientid, body.action, body.topic)
      return c.json({ result: ok ? 'allow' : 'deny' })
    },
  )

  r.typed(
    {
      ...hook,
      path: '/emqx/events',
      summary: 'EMQX client connected/disconnected events',
      body: EmqxEvent,
      response: EmqxAck,
    },
    async (c, { body }) => {
      if (body.event === 'client.connected') await gate.connected(sessionOf(body))
      if (body.event === 'client.disconnected')
        await gate.disconnected({ ...sessionOf(body), replaced: REPLACED.has(body.reason ?? '') })
      return c.json({})
    },
  )

  return r
}
