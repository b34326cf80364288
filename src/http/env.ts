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
    /** The request's id (X-Request-Id), set by the first middleware (http/observe.ts). */
    requestId: string
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

/** The client's address as the socket sees it (Node's server), null under `app.request()`. */
export function remoteAddress(c: { env: unknown }): string | null {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined
  return env?.incoming?.socket?.remoteAddress ?? null
}
