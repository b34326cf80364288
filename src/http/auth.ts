import type { MiddlewareHandler } from 'hono'
import type { AccountRepository, UserRecord } from '../../store/types.ts'
import { hashToken, safeEqual, signJwt, verifyJwt } from '../kernel/secrets.ts'
import type { AppEnv, Caller, Role } from './env.ts'

const USER_TTL_MS = 5_000
export const TOKEN_DAYS = 3
export const REMEMBER_DAYS = 30

/**
 * Resolves API callers: `Bearer <jwt>` of a user, or `Basic base64(appID:appToken)` of an
 * application. Users are re-read at most every 5 s (and at once after an edit), so a deleted user or a
 * changed role takes effect promptly.
 */
export class Authenticator {
  private users = new Map<number, { user: UserRecord | undefined; at: number }>()

  constructor(
    private accounts: AccountRepository,
    private secret: string,
  ) {}

  issue(user: { id: number; tenantID: string; role: string }, remember = false) {
    const iat = Math.floor(Date.now() / 1000)
    const exp = iat + (remember ? REMEMBER_DAYS : TOKEN_DAYS) * 86_400
    return {
      token: signJwt({ sub: user.id, tid: user.tenantID, role: user.role, iat, exp }, this.secret),
      exp,
    }
  }

  forget(userIntID: number) {
    this.users.delete(userIntID)
  }

  async resolve(header: string | undefined): Promise<Caller | string> {
    if (!header) return 'missing credentials'
    const space = header.indexOf(' ')
    const scheme = header.slice(0, space).toLowerCase()
    const value = header.slice(space + 1).trim()
    if (scheme === 'bearer') return this.bearer(value)
    if (scheme === 'basic') return this.basic(value)
    return 'unsupported authorization scheme'
  }

  private async bearer(token: string): Promise<Caller | string> {
    const claims = verifyJwt(token, this.secret)
    if (!claims) return 'invalid or expired token'
    const user = await this.user(claims.sub)
    if (!user || user.tenantID !== claims.tid) return 'invalid or expired token'
    return {
      tenantID: user.tenantID,
      userIntID: user.id,
      username: user.username,
      role: user.role,
      kind: 'user',
    }
  }

  private async basic(value: string): Promise<Caller | string> {
    const decoded = Buffer.from(value, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 1) return 'malformed basic credentials'
    const app = await this.accounts.applicationByAppID(decoded.slice(0, colon))
    const given = hashToken(decoded.slice(colon + 1))
    // compare even when the app is unknown, so timing does not tell which appIDs exist
    const ok = safeEqual(given, app?.tokenHash ?? hashToken('')) && app !== undefined
    if (!ok || !app) return 'invalid application credentials'
    if (app.expiredAt !== null && app.expiredAt <= Date.now())
      return 'application credentials expired'
    return {
      tenantID: app.tenantID,
      userIntID: null,
      username: app.appName,
      role: app.role as Role,
      kind: 'application',
    }
  }

  private async user(id: number): Promise<UserRecord | undefined> {
    const hit = this.users.get(id)
    if (hit && Date.now() - hit.at < USER_TTL_MS) return hit.user
    const user = await this.accounts.userById(id)
    this.users.set(id, { user, at: Date.now() })
    return user
  }
}

/** Sets `caller`/`tenant` when the credentials are good; routes that need them answer 401 otherwise. */
export function authMiddleware(auth: Authenticator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await auth.resolve(c.req.header('authorization'))
    if (typeof caller !== 'string') {
      c.set('caller', caller)
      c.set('tenant', caller.tenantID)
    }
    await next()
  }
}
