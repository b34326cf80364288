import type { ListArgs, Page, Row } from '../types.ts'

/** A user as sign-in and the authenticator need it (with the password hash; never sent to clients). */
export interface UserRecord {
  id: number
  tenantID: string
  username: string
  email: string
  passwordHash: string
  role: 'admin' | 'user' | 'viewer'
}

/** An application (API key) as the authenticator needs it. */
export interface ApplicationRecord {
  id: number
  tenantID: string
  appID: string
  tokenHash: string
  appName: string
  role: 'admin' | 'user' | 'viewer'
  /** Epoch ms, or null for no expiry. */
  expiredAt: number | null
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
    admin: Omit<UserRecord, 'id' | 'tenantID' | 'role'>,
  ): Promise<number>
  /** The user with that email (any tenant), for sign-in. */
  userByEmail(email: string): Promise<UserRecord | undefined>
  /** The user with that record id (any tenant), for the authenticator. */
  userById(id: number): Promise<UserRecord | undefined>
  /** A page of the tenant's users (no password hashes). */
  listUsers(tenant: string, q: ListArgs): Promise<Page>
  /** One user of the tenant; NotFound otherwise. */
  getUser(tenant: string, id: number): Promise<Row>
  /** Creates a user; Conflict('email') when the email is registered. */
  createUser(tenant: string, u: UserInput): Promise<Row>
  /** Edits a user; absent fields keep their values. NotFound, Conflict('email'). */
  updateUser(tenant: string, id: number, u: Partial<UserInput>): Promise<Row>
  /** Deletes all of `ids` or none (NotFound('ids')). */
  deleteUsers(tenant: string, ids: number[]): Promise<void>
  /** A page of the tenant's applications (no token hashes). */
  listApplications(tenant: string, q: ListArgs): Promise<Page>
  /** One application of the tenant; NotFound otherwise. */
  getApplication(tenant: string, id: number): Promise<Row>
  /** The application with that appID (any tenant), for the authenticator. */
  applicationByAppID(appID: string): Promise<ApplicationRecord | undefined>
  /** Creates an application. */
  createApplication(tenant: string, a: ApplicationInput): Promise<Row>
  /** Edits name, role and expiry; absent fields keep their values (expiredAt null clears it). */
  updateApplication(
    tenant: string,
    id: number,
    a: { appName?: string; role?: string; expiredAt?: number | null },
  ): Promise<Row>
  /** Deletes all of `ids` or none (NotFound('ids')). */
  deleteApplications(tenant: string, ids: number[]): Promise<void>
}
