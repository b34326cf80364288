import type { Lang } from '../wire/shape.ts'

export type Role = 'admin' | 'user' | 'viewer'

/** Who is calling: set by the auth middleware on every authenticated request. */
export interface Caller {
  tenantID: string
  userIntID: number | null
  username: string
  role: Role
  kind: 'user' | 'application'
}

export interface AppEnv {
  Variables: {
    caller: Caller
    tenant: string
    lang: Lang
    tz: string
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

/** The serializers' view of a request: label language and time zone. */
export function wireCtx(c: { get(key: 'lang'): Lang; get(key: 'tz'): string }) {
  return { lang: c.get('lang'), tz: c.get('tz') }
}

/** The services' view of the caller: the tenant a write happens in and the user it is recorded for. */
export function actorOf(c: { get(key: 'tenant'): string; get(key: 'caller'): Caller }) {
  const caller = c.get('caller')
  return { tenant: c.get('tenant'), userIntID: caller.userIntID, username: caller.username }
}
