import { hashPassword, hashToken, randomId, verifyPassword } from '../kernel/secrets.ts'
import type { Role } from '../http/env.ts'
import type { Actor, ServiceDeps } from './types.ts'
import { Invalid, Referenced, TooMany, Unauthenticated } from '../kernel/errors.ts'
import type { LoginPolicy } from '../../store/types.ts'

interface UserInput {
  username?: string
  email?: string
  password?: string
  role?: Role
}

interface ApplicationInput {
  appName?: string
  role?: Role
  /** Epoch ms, null for never; undefined keeps the stored one on edit. */
  expiredAt?: number | null
}

export interface AccountDeps extends Pick<ServiceDeps, 'meta' | 'events'> {
  config: { LOGIN_MAX_FAILURES: number; LOGIN_WINDOW_SECONDS: number; LOGIN_LOCK_SECONDS: number }
  now?: () => number
}

/** The longest a login lock lasts, however often it doubled. */
const MAX_LOCK_MS = 3600_000

/**
 * Tenants, users and applications. Passwords are stored as scrypt hashes and application tokens as SHA-256
 * digests; the plain token is returned once, at creation. User edits and deletes announce `user.changed` /
 * `user.deleted`, so cached sessions are re-read at once; a password or role change (or a delete) revokes the
 * user's tokens. A tenant always keeps one admin. Failed logins are counted per email and client address in the
 * metadata store (so every process of the service sees them): LOGIN_MAX_FAILURES within LOGIN_WINDOW_SECONDS lock
 * that pair for LOGIN_LOCK_SECONDS, doubling with each further lock.
 */
export function accountService(deps: AccountDeps) {
  return { ...loginAccounts(deps), ...tenantAccounts(deps) }
}

/** The login throttle of `config`: its policy, whether it is on, and the refusal while a lock lasts. */
function throttleOf({ config, now = Date.now }: AccountDeps) {
  const policy: LoginPolicy = {
    maxFailures: config.LOGIN_MAX_FAILURES,
    windowMs: config.LOGIN_WINDOW_SECONDS * 1000,
    lockMs: config.LOGIN_LOCK_SECONDS * 1000,
    maxLockMs: MAX_LOCK_MS,
  }
  const tooMany = (until: number) => {
    const seconds = Math.max(1, Math.ceil((until - now()) / 1000))
    return new TooMany({ email: `too many failed logins; try again in ${seconds} s` }, seconds)
  }
  return { policy, throttled: policy.maxFailures > 0, tooMany }
}

/** Logins, with their throttling, a user's own password and logouts. */
function loginAccounts(deps: AccountDeps) {
  const { meta, events, now = Date.now } = deps
  const { policy, throttled, tooMany } = throttleOf(deps)

  return {
    /**
     * The user with these credentials; AUTH_FAILED otherwise (unknown emails cost the same time).
     * TOO_MANY_REQUESTS while failed logins for this email from `address` are locked out.
     */
    async authenticate(email: string, password: string, address: string, requestID?: string) {
      if (throttled) {
        const until = await meta.accounts.loginLockedUntil(email, address, now())
        if (until) throw tooMany(until)
      }
      const user = await meta.accounts.userByEmail(email)
      const ok = user
        ? await verifyPassword(password, user.passwordHash)
        : (await hashPassword(password), false)
      const signIn = (action: 'login' | 'login_failed', userIntID: number) =>
        meta.audit.signIn({
          userIntID,
          action,
          clientIP: address,
          requestID: requestID ?? null,
          at: now(),
        })
      if (!ok || !user) {
        if (throttled) await meta.accounts.loginFailed(email, address, now(), policy)
        if (user) await signIn('login_failed', user.id) // an unknown email has no tenant to show it to
        throw user
          ? new Unauthenticated({ password: 'wrong password' })
          : new Unauthenticated({ email: 'no user with this email' })
      }
      if (throttled) await meta.accounts.loginSucceeded(email, address)
      // only the right password learns that the user is disabled
      if (user.enable !== 1) {
        await signIn('login_failed', user.id)
        throw new Unauthenticated({ email: 'this user is disabled' })
      }
      await signIn('login', user.id)
      return user
    },

    /**
     * A signed-in user sets their own password: `oldPassword` must be theirs (a wrong one is 422
     * `errors.oldPassword` and counts as a failed login of their email from `address`, so it is throttled the
     * same way). Their tokens are revoked except `keepJti`, the one they called with.
     */
    async changeOwnPassword(
      userIntID: number,
      body: { oldPassword: string; password: string },
      keepJti: string,
      address: string,
    ) {
      const user = await meta.accounts.userById(userIntID)
      if (!user) throw new Unauthenticated({ authorization: 'invalid or expired token' })
      if (throttled) {
        const until = await meta.accounts.loginLockedUntil(user.email, address, now())
        if (until) throw tooMany(until)
      }
      if (!(await verifyPassword(body.oldPassword, user.passwordHash))) {
        if (throttled) await meta.accounts.loginFailed(user.email, address, now(), policy)
        throw new Invalid({ oldPassword: 'wrong password' })
      }
      if (throttled) await meta.accounts.loginSucceeded(user.email, address)
      await meta.accounts.setPassword(user.id, await hashPassword(body.password), keepJti)
      events.emit('user.changed', { tenantID: user.tenantID, id: user.id })
    },

    /** Revokes one token of a user (logout) until it would have expired. */
    async revokeToken(jti: string, expiresAt: number) {
      await meta.accounts.revokeToken(jti, expiresAt)
      events.emit('token.revoked', { jti })
    },
  }
}

/** Tenants, their users and their applications. */
function tenantAccounts({ meta, events }: AccountDeps) {
  return {
    /** A new tenant and its first admin. */
    async signup(body: { email: string; username: string; password: string; tenantName: string }) {
      const tenantID = `T${randomId(9)}`
      const passwordHash = await hashPassword(body.password)
      const { tenantName, ...user } = body
      const id = await meta.accounts.createTenant(
        { tenantID, tenantName },
        { ...user, passwordHash },
      )
      return { id, tenantID, role: 'admin' as const, username: body.username, email: body.email }
    },

    async createUser(a: Actor, body: Required<UserInput>) {
      const { password, ...user } = body
      return meta.accounts.createUser(a.tenant, {
        ...user,
        passwordHash: await hashPassword(password),
      })
    },

    /** Edits a user; `enable` 0 disables them (never oneself), which revokes their tokens. */
    async updateUser(a: Actor, id: number, body: UserInput & { enable?: number }) {
      if (body.enable === 0 && id === a.userIntID)
        throw new Referenced({ enable: 'you cannot disable yourself' })
      const { password, ...fields } = body
      const passwordHash = password ? await hashPassword(password) : undefined
      // demoting or disabling the tenant's last enabled admin is the store's LastAdmin (400 naming the field)
      const user = await meta.accounts.updateUser(a.tenant, id, { ...fields, passwordHash })
      events.emit('user.changed', { tenantID: a.tenant, id })
      return user
    },

    /** Deletes users; a user cannot delete itself (REFERENCED_ERROR), nor the tenant's last admin. */
    async removeUsers(a: Actor, ids: number[]) {
      if (ids.includes(a.userIntID ?? -1))
        throw new Referenced({ ids: 'you cannot delete yourself' })
      await meta.accounts.deleteUsers(a.tenant, ids)
      for (const id of ids) events.emit('user.deleted', { tenantID: a.tenant, id })
    },

    /** A new application; the answer carries its token, which is never shown again. */
    async createApplication(a: Actor, body: Required<ApplicationInput>) {
      const appToken = randomId(40)
      const app = await meta.accounts.createApplication(a.tenant, {
        appName: body.appName,
        role: body.role,
        appID: `A${randomId(15)}`,
        tokenHash: hashToken(appToken),
        expiredAt: body.expiredAt,
        userIntID: a.userIntID,
      })
      return { ...app, appToken }
    },

    updateApplication: (a: Actor, id: number, body: ApplicationInput) =>
      meta.accounts.updateApplication(a.tenant, id, body),

    removeApplications: (a: Actor, ids: number[]) =>
      meta.accounts.deleteApplications(a.tenant, ids),
  }
}
