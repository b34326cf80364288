import type { ListArgs, Page } from '../list.ts'
import type {
  ApplicationDetail,
  ApplicationRecord,
  UserDetail,
  UserRecord,
} from '../fields/accounts.ts'

export type {
  ApplicationDetail,
  ApplicationRecord,
  UserDetail,
  UserRecord,
} from '../fields/accounts.ts'

/** Login throttling: failures counted per email and client address. */
export interface LoginPolicy {
  /** Failures within `windowMs` that lock further tries. */
  maxFailures: number
  windowMs: number
  /** The first lock's length; each further lock in a row doubles it, up to `maxLockMs`. */
  lockMs: number
  maxLockMs: number
}

/** What a user write stores. */
export interface UserInput {
  username: string
  email: string
  passwordHash: string
  role: string
}

/** What an application write stores. */
export interface ApplicationInput {
  appName: string
  appID: string
  tokenHash: string
  role: string
  expiredAt: number | null
  userIntID: number | null
}

/** Tenants, their users and applications (API keys), and service-wide settings. */
export interface AccountRepository {
  /** The value of a service-wide setting, if set. */
  setting(key: string): Promise<string | undefined>
  /** Stores `value` unless the key is set already; returns the value in force. */
  settingOnce(key: string, value: string): Promise<string>
  /** How many users exist across all tenants. */
  userCount(): Promise<number>
  /** Creates a tenant and its first admin in one transaction; returns the admin's id. Conflict('email'). */
  createTenant(
    t: { tenantID: string; tenantName: string },
    admin: Pick<UserRecord, 'username' | 'email' | 'passwordHash'>,
  ): Promise<number>
  /** The user with that email (any tenant), for sign-in. */
  userByEmail(email: string): Promise<UserRecord | undefined>
  /** The user with that record id (any tenant), for the authenticator. */
  userById(id: number): Promise<UserRecord | undefined>
  /** The admin created first (the lowest id, of any tenant). */
  firstAdmin(): Promise<UserRecord | undefined>
  /** A page of the tenant's users (no password hashes). */
  listUsers(tenant: string, q: ListArgs): Promise<Page<UserDetail>>
  /** One user of the tenant; NotFound otherwise. */
  getUser(tenant: string, id: number): Promise<UserDetail>
  /** Creates a user; Conflict('email') when the email is registered. */
  createUser(tenant: string, u: UserInput): Promise<UserDetail>
  /**
   * Edits a user; absent fields keep their values. A new password, another role or `enable` 0 bumps the user's token
   * version (their tokens stop working). NotFound, Conflict('email'), LastAdmin('role' / 'enable') when it demotes or
   * disables the tenant's last enabled admin.
   */
  updateUser(
    tenant: string,
    id: number,
    u: Partial<UserInput & { enable: number }>,
  ): Promise<UserDetail>
  /**
   * Sets a user's password and bumps their token version (revoking their tokens) except the token `keepJti`,
   * which keeps working (null: none is kept). The user is enabled (`npm run reset-admin` is the way back in).
   */
  setPassword(id: number, passwordHash: string, keepJti: string | null): Promise<void>
  /**
   * Deletes all of `ids` or none: NotFound('ids') when one is not in the tenant, LastAdmin('ids') when no admin
   * of the tenant would be left.
   */
  deleteUsers(tenant: string, ids: number[]): Promise<void>
  /** Until when (epoch ms) logins for this email from this address are refused; 0 when they are not. */
  loginLockedUntil(email: string, address: string, now: number): Promise<number>
  /** Counts a failed login; answers the lock it put in force (epoch ms), or 0. */
  loginFailed(email: string, address: string, now: number, policy: LoginPolicy): Promise<number>
  /** Forgets the failures of this email from this address (after a successful login). */
  loginSucceeded(email: string, address: string): Promise<void>
  /** Forgets every failed login of this email, from any address (its locks end). */
  clearLoginFailures(email: string): Promise<void>
  /** Revokes one token (by its id) until it would have expired; expired revocations are dropped. */
  revokeToken(jti: string, expiresAt: number): Promise<void>
  /** Whether the token with this id was revoked. */
  isTokenRevoked(jti: string): Promise<boolean>
  /** A page of the tenant's applications (no token hashes). */
  listApplications(tenant: string, q: ListArgs): Promise<Page<ApplicationDetail>>
  /** One application of the tenant; NotFound otherwise. */
  getApplication(tenant: string, id: number): Promise<ApplicationDetail>
  /** The application with that appID (any tenant), for the authenticator. */
  applicationByAppID(appID: string): Promise<ApplicationRecord | undefined>
  /** Creates an application. */
  createApplication(tenant: string, a: ApplicationInput): Promise<ApplicationDetail>
  /** Edits name, role and expiry; absent fields keep their values (expiredAt null clears it). */
  updateApplication(
    tenant: string,
    id: number,
    a: { appName?: string; role?: string; expiredAt?: number | null },
  ): Promise<ApplicationDetail>
  /** Deletes all of `ids` or none (NotFound('ids')). */
  deleteApplications(tenant: string, ids: number[]): Promise<void>
}
