import type { Context, Next } from 'hono'
import type { Deps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { safeEqual } from '../kernel/secrets.ts'
import {
  EmqxAck,
  EmqxAcl,
  EmqxAuth,
  EmqxEvent,
  EmqxResult,
  type EmqxEventBody,
} from '../schemas/emqx.ts'
import { AclChecker } from '../../ingest/acl.ts'
import { ConnectionTracker } from '../../ingest/connections.ts'
import { checkCredentials } from '../../ingest/credentials.ts'
import type { DeviceIdentity } from '../../ingest/types.ts'
import { DeviceDirectory } from '../../ingest/identity.ts'

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

/**
 * The hooks an EMQX 5 cluster calls for device authentication, authorization (ACL) and client connected /
 * disconnected events. They are public routes guarded by a shared secret (EMQX_HOOK_SECRET).
 */
export function emqxRoutes({ config, meta, bus }: Deps) {
  const r = new Router()
  const directory = new DeviceDirectory(meta.db, bus)
  const acl = new AclChecker(meta.db, bus)
  const tracker = new ConnectionTracker(meta)
  /** clientid → its current session: EMQX's connected_at and the object ConnectionTracker tells sessions by. */
  const sessions = new Map<string, { connectedAt: number | undefined; session: object }>()
  const serviceAccount = (username?: string) =>
    !!config.MQTT_USERNAME && username === config.MQTT_USERNAME

  r.app.use('/emqx/*', async (c: Context, next: Next) => {
    const secret = config.EMQX_HOOK_SECRET
    if (!secret) throw new ApiError('DATA_NOT_FOUND', { url: `no such path: ${c.req.path}` })
    if (!safeEqual(c.req.header(HOOK_SECRET_HEADER) ?? '', secret))
      throw new ApiError('AUTH_FAILED', { [HOOK_SECRET_HEADER]: 'missing or wrong hook secret' })
    await next()
  })

  const hook = { tag, public: true, description, method: 'post' } as const

  r.route(
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
      const presented = {
        clientId: body.clientid,
        username: body.username,
        password: body.password,
        certCN: body.cert_common_name || undefined,
        certsForDevice: (id: number) => meta.certs.certsForDevice(id),
      }
      const verdict = await checkCredentials(directory, presented)
      if (verdict.ok) return c.json({ result: 'allow', is_superuser: false })
      await tracker.refused({
        clientId: body.clientid,
        ip: hostOf(body.peerhost),
        device: verdict.device,
      })
      return c.json({ result: 'deny' })
    },
  )

  r.route(
    {
      ...hook,
      path: '/emqx/acl',
      summary: 'EMQX HTTP authorizer',
      body: EmqxAcl,
      response: EmqxResult,
    },
    async (c, { body }) => {
      if (serviceAccount(body.username)) return c.json({ result: 'allow' })
      const device = await directory.byDeviceID(body.clientid)
      if (!device || device.blocked) return c.json({ result: 'deny' })
      const ok =
        body.action === 'publish'
          ? await acl.canPublish(device, body.topic)
          : await acl.canSubscribe(device, body.topic)
      return c.json({ result: ok ? 'allow' : 'deny' })
    },
  )

  r.route(
    {
      ...hook,
      path: '/emqx/events',
      summary: 'EMQX client connected/disconnected events',
      body: EmqxEvent,
      response: EmqxAck,
    },
    async (c, { body }) => {
      const device = await directory.byDeviceID(body.clientid)
      if (!device) return c.json({})
      if (body.event === 'client.connected') await connected(device, body)
      if (body.event === 'client.disconnected') await disconnected(device, body)
      return c.json({})
    },
  )

  async function connected(device: DeviceIdentity, e: EmqxEventBody) {
    const session = { key: `${e.clientid}#${e.connected_at ?? Date.now()}` }
    sessions.set(e.clientid, { connectedAt: e.connected_at, session })
    await tracker.connected(device, {
      ip: hostOf(e.peername),
      keepAlive: e.keepalive ?? 0,
      session,
    })
  }

  /** A replaced session (takeover) or an older one than the current is logged but never marks the device offline. */
  async function disconnected(device: DeviceIdentity, e: EmqxEventBody) {
    const current = sessions.get(e.clientid)
    const stale =
      REPLACED.has(e.reason ?? '') ||
      (e.connected_at !== undefined &&
        current?.connectedAt !== undefined &&
        e.connected_at !== current.connectedAt)
    if (!stale && current) sessions.delete(e.clientid)
    await tracker.disconnected(
      device,
      !stale && current ? current.session : { key: `${e.clientid}#stale` },
    )
  }

  return r
}
