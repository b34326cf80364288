/**
 * Users and applications (API keys), declared once: store/libsql/accounts.ts selects, filters and sorts them from
 * these tables and answers their records (`RecordOf`). The credentials tables add what sign-in and the
 * authenticator read (hashes, token version); lists and details never select them.
 */
import { z } from 'zod'
import { int, str, times } from './table.ts'
import type { FieldTable, RecordOf } from './table.ts'

const role = z.enum(['admin', 'user', 'viewer'])

/** A user of a tenant (`u`), as the users routes answer it. */
export const USER_TABLE = {
  id: { sql: 'u.id', read: int },
  tenantID: { sql: 'u.tenant_id', read: str },
  username: { sql: 'u.username', column: 'username', type: str, filter: 'text' },
  email: { sql: 'u.email', column: 'email', type: str, filter: 'text' },
  role: { sql: 'u.role', column: 'role', type: role, filter: 'text' },
  /** 1 enabled, 0 disabled: a disabled user cannot sign in and their tokens stop working. */
  enable: { sql: 'u.enable', column: 'enable', type: int, label: 'userEnable', filter: 'int' },
  ...times('u'),
} as const satisfies FieldTable

export type UserDetail = RecordOf<typeof USER_TABLE>

/** A user as sign-in and the authenticator read it: with its password hash (never sent to clients). */
export const USER_CREDENTIALS_TABLE = {
  ...USER_TABLE,
  passwordHash: { sql: 'u.password_hash', read: str },
  /** Tokens issued under another version are revoked (a password or role change bumps it). */
  tokenVersion: { sql: 'u.token_version', read: int },
  /** The one token (jti) of an older version still valid: the one the user changed their own password with. */
  keptJti: { sql: 'u.kept_jti', read: str.nullable() },
} as const satisfies FieldTable

/** A user with its credentials (sign-in, the authenticator). */
export type UserRecord = RecordOf<typeof USER_CREDENTIALS_TABLE>

/** An application (`a`): an API key of a tenant, as the applications routes answer it. */
export const APPLICATION_TABLE = {
  id: { sql: 'a.id', read: int },
  appName: { sql: 'a.app_name', column: 'app_name', type: str, filter: 'text' },
  /** Generated on create, immutable. */
  appID: { sql: 'a.app_id', read: str, filter: 'text' },
  role: { sql: 'a.role', column: 'role', type: role, filter: 'text' },
  /** Epoch ms, or null for no expiry. */
  expiredAt: { sql: 'a.expired_at', column: 'expired_at', type: int.nullable(), time: true },
  userIntID: { sql: 'a.user_int_id', read: int.nullable() },
  ...times('a'),
} as const satisfies FieldTable

export type ApplicationDetail = RecordOf<typeof APPLICATION_TABLE>

/** An application as the authenticator reads it: with its tenant and token hash. */
export const APPLICATION_KEY_TABLE = {
  ...APPLICATION_TABLE,
  tenantID: { sql: 'a.tenant_id', read: str },
  tokenHash: { sql: 'a.token_hash', read: str },
} as const satisfies FieldTable

/** An application with its token hash (the authenticator). */
export type ApplicationRecord = RecordOf<typeof APPLICATION_KEY_TABLE>
