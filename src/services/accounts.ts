import { ApiError } from '../errors.ts'
import { hashPassword, hashToken, randomId, verifyPassword } from '../kernel/secrets.ts'
import type { Role } from '../http/env.ts'
import type { Actor, ServiceDeps } from './types.ts'

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

/**
 * Tenants, users and applications. Passwords are stored as scrypt hashes and application tokens as SHA-256
 * digests; the plain token is returned once, at creation. User edits and deletes announce `user.changed` /
 * `user.deleted`, so cached sessions are re-read at once.
 */
export function accountService({ meta, events }: ServiceDeps) {
  return {
    /** The user with these credentials; AUTH_FAILED otherwise (unknown emails cost the same time). */
    async authenticate(email: string, password: string) {
      const user = await meta.accounts.userByEmail(email)
      if (!user) {
        await hashPassword(password)
        throw new ApiError('AUTH_FAILED', { email: 'no user with this email' })
      }
      if (!(await verifyPassword(password, user.passwordHash)))
        throw new ApiError('AUTH_FAILED', { password: 'wrong password' })
      return user
    },

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

    async updateUser(a: Actor, id: number, body: UserInput) {
      const { password, ...fields } = body
      const passwordHash = password ? await hashPassword(password) : undefined
      const user = await meta.accounts.updateUser(a.tenant, id, { ...fields, passwordHash })
      events.emit('user.changed', { tenantID: a.tenant, id })
      return user
    },

    /** Deletes users; a user cannot delete itself (REFERENCED_ERROR). */
    async removeUsers(a: Actor, ids: number[]) {
      if (ids.includes(a.userIntID ?? -1))
        throw new ApiError('REFERENCED_ERROR', { ids: 'you cannot delete yourself' })
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
