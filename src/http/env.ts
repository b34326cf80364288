import type { Lang } from '../wire/shape.ts'

export type Role = 'admin' | 'user' | 'viewer'

/** Who is calling: set by the auth middleware on every authenticated request. */
export interface Caller {
  tenantID: string
  userIntID: number | null
  username: string
  role: Role
  kind: 'user' | 'application'
  /** The bearer token used (users): its id and expiry, for logout. */
  token?: { id: string; expiresAt: number }
}

export interface AppEnv {
  Variables: {
    caller: Caller
    /** Why the request has no caller (missing, malformed, expired or revoked credentials). */
    authProblem: string
    tenant: string
    lang: Lang
    tz: string
    /** The client's address (src/app.ts: the socket's, or X-Forwarded-For's behind a trusted proxy). */
    clientAddress: string | null
    /** The request's id (X-Request-Id), set by the first middleware (http/observe.ts). */
    requestId: string
    /** Reads the request's body under its limit from Node's request, once (http/body.ts); unset otherwise. */
    body: () => Promise<Buffer>
  }
}

/** Accept-Language → label language: English when the first preference is English, Chinese otherwise. */
export function pickLang(header: string | undefined): Lang {
  if (!header) return 'zh'
  const prefs = header
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      return { tag: tag.toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 }
    })
    .filter((p) => p.tag && p.q > 0)
    .sort((a, b) => b.q - a.q)
  return prefs[0]?.tag.startsWith('en') ? 'en' : 'zh'
}

/** The serializers' view of a request: label language, time zone, and whether it may read secrets. */
export function wireCtx(c: {
  get(key: 'lang'): Lang
  get(key: 'tz'): string
  get(key: 'caller'): Caller | undefined
}) {
  return { lang: c.get('lang'), tz: c.get('tz'), secrets: mayReadSecrets(c.get('caller')) }
}

/** Device tokens and private keys are shown to admins and users only: viewers read null. */
export const mayReadSecrets = (caller: Caller | undefined) =>
  caller !== undefined && caller.role !== 'viewer'

/** The services' view of the caller: the tenant a write happens in and the user it is recorded for. */
export function actorOf(c: { get(key: 'tenant'): string; get(key: 'caller'): Caller }) {
  const caller = c.get('caller')
  return { tenant: c.get('tenant'), userIntID: caller.userIntID, username: caller.username }
}

/** The address of the socket a request came on (Node's server), null under `app.request()`. */
export function socketAddress(c: { env: unknown }): string | null {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined
  const a = env?.incoming?.socket?.remoteAddress
  return a ? plainAddress(a) : null
}

/** An IPv4 address Node reports in its IPv6-mapped form (`::ffff:10.0.0.1`) as plain IPv4. */
const plainAddress = (a: string) => (a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a)

/**
 * The client's address: the socket's, or, when the socket is one of the trusted proxies (TRUSTED_PROXIES), the
 * right-most address of `X-Forwarded-For` that is not a trusted proxy itself (the left-most entries are the
 * client's own claim and could be anything). Null when unknown.
 */
export function clientAddress(
  socket: string | null,
  forwardedFor: string | undefined,
  trusted: ReadonlySet<string>,
): string | null {
  if (socket === null || !trusted.has(socket) || !forwardedFor) return socket
  const hops = forwardedFor
    .split(',')
    .map((h) => plainAddress(h.trim()))
    .filter(Boolean)
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted.has(hops[i]!)) return hops[i]!
  return hops[0] ?? socket
}
