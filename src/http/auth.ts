import type { MiddlewareHandler } from 'hono'
import type { AccountRepository, UserRecord } from '../../store/types.ts'
import { hashToken, randomId, safeEqual, signJwt, verifyJwt } from '../kernel/secrets.ts'
import type { AppEnv, Caller } from './env.ts'

const USER_TTL_MS = 5_000
export const TOKEN_DAYS = 3
export const REMEMBER_DAYS = 30

/** Remembered revocation checks (a bounded map: the oldest entries go first). */
const REVOKED_CACHE = 10_000

/**
 * Resolves API callers: `Bearer <jwt>` of a user, or `Basic base64(appID:appToken)` of an
 * application. Users are re-read at most every 5 s (and at once after an edit), so a deleted user or a
 * changed role takes effect promptly. A token names the user's token version (a password or role change bumps
 * it, revoking older tokens, except the one a user changed their own password with) and carries an id that logout
 * revokes; revocations are read from the store at most
 * every 5 s per token (at once in the process that revoked it).
 */
export class Authenticator {
  private users = new Map<number, { user: UserRecord | undefined; at: number }>()
  private revoked = new Map<string, { revoked: boolean; at: number }>()

  constructor(
    private accounts: AccountRepository,
    private secret: string,
  ) {}

  issue(
    user: { id: number; tenantID: string; role: string; tokenVersion?: number },
    remember = false,
  ) {
    const iat = Math.floor(Date.now() / 1000)
    const exp = iat + (remember ? REMEMBER_DAYS : TOKEN_DAYS) * 86_400
    const claims = {
      sub: user.id,
      tid: user.tenantID,
      role: user.role,
      iat,
      exp,
      jti: randomId(22),
      ver: user.tokenVersion ?? 0,
    }
    return { token: signJwt(claims, this.secret), exp }
  }

  forget(userIntID: number) {
    this.users.delete(userIntID)
  }

  /** A token revoked in this process stops working at once. */
  forgetToken(jti: string) {
    this.remember(jti, true)
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
    if (user.enable !== 1) return 'user disabled'
    const kept = claims.jti !== undefined && claims.jti === user.keptJti
    if ((claims.ver ?? 0) !== user.tokenVersion && !kept) return 'token revoked'
    if (claims.jti && (await this.isRevoked(claims.jti))) return 'token revoked'
    return {
      tenantID: user.tenantID,
      userIntID: user.id,
      username: user.username,
      role: user.role,
      kind: 'user',
      token: claims.jti ? { id: claims.jti, expiresAt: claims.exp * 1000 } : undefined,
    }
  }

  private async isRevoked(jti: string): Promise<boolean> {
    const hit = this.revoked.get(jti)
    if (hit && (hit.revoked || Date.now() - hit.at < USER_TTL_MS)) return hit.revoked
    const revoked = await this.accounts.isTokenRevoked(jti)
    this.remember(jti, revoked)
    return revoked
  }

  private remember(jti: string, revoked: boolean) {
    this.revoked.delete(jti)
    if (this.revoked.size >= REVOKED_CACHE) this.revoked.delete(this.revoked.keys().next().value!)
    this.revoked.set(jti, { revoked, at: Date.now() })
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
      role: app.role,
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

/**
 * Sets `caller`/`tenant` when the credentials are good, `authProblem` (what is wrong with them) otherwise; routes
 * that need a caller answer 401 with that reason.
 */
export function authMiddleware(auth: Authenticator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await auth.resolve(c.req.header('authorization'))
    if (typeof caller !== 'string') {
      c.set('caller', caller)
      c.set('tenant', caller.tenantID)
    } else c.set('authProblem', caller)
    await next()
  }
}
