import type { Db } from './db.ts'
import type {
  AccountRepository,
  ApplicationInput,
  ApplicationRecord,
  ListArgs,
  UserInput,
  UserRecord,
  LoginPolicy,
} from '../types.ts'
import { Conflict, LastAdmin, NotFound } from '../errors.ts'
import { listPage, tenantList } from './list.ts'
import { isUniqueViolation } from './sql-errors.ts'
import { readRecord, readRequired } from './records.ts'
import {
  APPLICATION_KEY_TABLE,
  APPLICATION_TABLE,
  USER_CREDENTIALS_TABLE,
  USER_TABLE,
} from '../fields/accounts.ts'

const userList = tenantList(USER_TABLE, 'FROM users u', 'u')

const appList = tenantList(APPLICATION_TABLE, 'FROM applications a', 'a')

/** Tenants, their users and applications (API keys), and service-wide settings. */
export class AccountsRepo implements AccountRepository {
  constructor(private readonly db: Db) {}

  async setting(key: string): Promise<string | undefined> {
    const r = await this.db.one('SELECT value FROM settings WHERE key = ?', [key])
    return r ? String(r.value) : undefined
  }

  /** Stores `value` unless the key is set already; returns the value in force. */
  async settingOnce(key: string, value: string): Promise<string> {
    await this.db.run(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING',
      [key, value],
    )
    return (await this.setting(key)) ?? value
  }

  async userCount(): Promise<number> {
    return Number((await this.db.one('SELECT count(*) AS n FROM users'))?.n ?? 0)
  }

  /** Creates a tenant and its first admin in one transaction. */
  async createTenant(
    t: { tenantID: string; tenantName: string },
    admin: Pick<UserRecord, 'username' | 'email' | 'passwordHash'>,
  ) {
    const now = Date.now()
    try {
      const [, user] = await this.db.batch([
        {
          sql: 'INSERT INTO tenants (tenant_id, tenant_name, create_at) VALUES (?, ?, ?)',
          args: [t.tenantID, t.tenantName, now],
        },
        {
          sql: `INSERT INTO users (tenant_id, username, email, password_hash, role, create_at) VALUES (?, ?, ?, ?, 'admin', ?)`,
          args: [t.tenantID, admin.username, admin.email, admin.passwordHash, now],
        },
      ])
      return Number(user!.lastInsertRowid)
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('email', 'this email is already registered')
      throw e
    }
  }

  userByEmail(email: string): Promise<UserRecord | undefined> {
    return readRecord(this.db, USER_CREDENTIALS_TABLE, 'FROM users u WHERE u.email = ?', [email])
  }

  userById(id: number): Promise<UserRecord | undefined> {
    return readRecord(this.db, USER_CREDENTIALS_TABLE, 'FROM users u WHERE u.id = ?', [id])
  }

  firstAdmin(): Promise<UserRecord | undefined> {
    return readRecord(
      this.db,
      USER_CREDENTIALS_TABLE,
      `FROM users u WHERE u.role = 'admin' ORDER BY u.id LIMIT 1`,
      [],
    )
  }

  listUsers(tenant: string, q: ListArgs) {
    return listPage(this.db, userList, [tenant], q)
  }

  getUser(tenant: string, id: number) {
    return readRequired(this.db, USER_TABLE, 'FROM users u WHERE u.tenant_id = ? AND u.id = ?', [
      tenant,
      id,
    ])
  }

  async createUser(tenant: string, u: UserInput) {
    try {
      const r = await this.db.run(
        'INSERT INTO users (tenant_id, username, email, password_hash, role, create_at) VALUES (?, ?, ?, ?, ?, ?)',
        [tenant, u.username, u.email, u.passwordHash, u.role, Date.now()],
      )
      return this.getUser(tenant, r.lastId)
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('email', 'this email is already registered')
      throw e
    }
  }

  async updateUser(tenant: string, id: number, u: Partial<UserInput & { enable: number }>) {
    await this.getUser(tenant, id)
    const role = u.role ?? null
    const enable = u.enable ?? null
    // on the right-hand side `role` and `enable` are the stored ones: a new password, another role or disabling
    // revokes the user's tokens
    const revokes = '(? IS NOT NULL OR coalesce(?, role) != role OR coalesce(?, enable) < enable)'
    const revokeArgs = [u.passwordHash ?? null, role, enable]
    let changes: number
    try {
      // the WHERE keeps the tenant's last enabled admin an enabled admin
      ;({ changes } = await this.db.run(
        `UPDATE users SET username = coalesce(?, username), email = coalesce(?, email),
           password_hash = coalesce(?, password_hash), role = coalesce(?, role), enable = coalesce(?, enable),
           token_version = token_version + (CASE WHEN ${revokes} THEN 1 ELSE 0 END),
           kept_jti = CASE WHEN ${revokes} THEN NULL ELSE kept_jti END,
           update_at = ?
         WHERE tenant_id = ? AND id = ?
           AND NOT (role = 'admin' AND enable = 1 AND (coalesce(?, 'admin') != 'admin' OR coalesce(?, 1) = 0)
             AND (SELECT count(*) FROM users WHERE tenant_id = ? AND role = 'admin' AND enable = 1) <= 1)`,
        [
          u.username ?? null,
          u.email ?? null,
          u.passwordHash ?? null,
          role,
          enable,
          ...revokeArgs,
          ...revokeArgs,
          Date.now(),
          tenant,
          id,
          role,
          enable,
          tenant,
        ],
      ))
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('email', 'this email is already registered')
      throw e
    }
    if (changes === 0) {
      if (enable === 0)
        throw new LastAdmin('enable', 'the last enabled admin of a tenant cannot be disabled')
      throw new LastAdmin('role', 'the last admin of a tenant cannot be demoted')
    }
    return this.getUser(tenant, id)
  }

  async setPassword(id: number, passwordHash: string, keepJti: string | null) {
    await this.db.run(
      `UPDATE users SET password_hash = ?, token_version = token_version + 1, kept_jti = ?, enable = 1,
         update_at = ?
       WHERE id = ?`,
      [passwordHash, keepJti, Date.now(), id],
    )
  }

  async deleteUsers(tenant: string, ids: number[]) {
    await this.requireAll('users', tenant, ids)
    const marks = ids.map(() => '?').join(',')
    // all or none, and only while an admin of the tenant stays
    const { changes } = await this.db.run(
      `DELETE FROM users WHERE tenant_id = ? AND id IN (${marks})
         AND (SELECT count(*) FROM users
              WHERE tenant_id = ? AND role = 'admin' AND enable = 1 AND id NOT IN (${marks})) > 0`,
      [tenant, ...ids, tenant, ...ids],
    )
    if (changes === 0)
      throw new LastAdmin('ids', 'the last enabled admin of a tenant cannot be deleted')
  }

  async loginLockedUntil(email: string, address: string, now: number) {
    const r = await this.db.one(
      'SELECT locked_until AS until FROM login_failures WHERE email = ? AND address = ? AND locked_until > ?',
      [email, address, now],
    )
    return r ? Number(r.until) : 0
  }

  async loginFailed(email: string, address: string, now: number, p: LoginPolicy) {
    // a window that ended without a lock in force starts afresh (and so does the doubling)
    const r = await this.db.one(
      `INSERT INTO login_failures (email, address, failures, window_start) VALUES (?1, ?2, 1, ?3)
       ON CONFLICT (email, address) DO UPDATE SET
         failures = CASE WHEN window_start <= ?4 AND locked_until <= ?3 THEN 1 ELSE failures + 1 END,
         lockouts = CASE WHEN window_start <= ?4 AND locked_until <= ?3 THEN 0 ELSE lockouts END,
         window_start = CASE WHEN window_start <= ?4 AND locked_until <= ?3 THEN ?3 ELSE window_start END
       RETURNING failures, lockouts`,
      [email, address, now, now - p.windowMs],
    )
    const failures = Number(r?.failures ?? 1)
    const lockouts = Number(r?.lockouts ?? 0)
    if (failures < p.maxFailures) return 0
    const until = now + Math.min(p.maxLockMs, p.lockMs * 2 ** Math.min(lockouts, 30))
    // the window restarts at each lock, so one more failure after it ends locks again, twice as long
    await this.db.run(
      `UPDATE login_failures SET locked_until = ?, lockouts = lockouts + 1, window_start = ?
       WHERE email = ? AND address = ?`,
      [until, now, email, address],
    )
    return until
  }

  async loginSucceeded(email: string, address: string) {
    await this.db.run('DELETE FROM login_failures WHERE email = ? AND address = ?', [
      email,
      address,
    ])
  }

  async clearLoginFailures(email: string) {
    await this.db.run('DELETE FROM login_failures WHERE email = ?', [email])
  }

  async revokeToken(jti: string, expiresAt: number) {
    await this.db.batch([
      { sql: 'DELETE FROM revoked_tokens WHERE expires_at < ?', args: [Date.now()] },
      {
        sql: 'INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING',
        args: [jti, expiresAt],
      },
    ])
  }

  async isTokenRevoked(jti: string) {
    return (
      (await this.db.one('SELECT 1 AS x FROM revoked_tokens WHERE jti = ?', [jti])) !== undefined
    )
  }

  listApplications(tenant: string, q: ListArgs) {
    return listPage(this.db, appList, [tenant], q)
  }

  getApplication(tenant: string, id: number) {
    return readRequired(
      this.db,
      APPLICATION_TABLE,
      'FROM applications a WHERE a.tenant_id = ? AND a.id = ?',
      [tenant, id],
    )
  }

  applicationByAppID(appID: string): Promise<ApplicationRecord | undefined> {
    return readRecord(this.db, APPLICATION_KEY_TABLE, 'FROM applications a WHERE a.app_id = ?', [
      appID,
    ])
  }

  async createApplication(tenant: string, a: ApplicationInput) {
    const r = await this.db.run(
      `INSERT INTO applications (tenant_id, app_name, app_id, token_hash, role, expired_at, user_int_id, create_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [tenant, a.appName, a.appID, a.tokenHash, a.role, a.expiredAt, a.userIntID, Date.now()],
    )
    return this.getApplication(tenant, r.lastId)
  }

  async updateApplication(
    tenant: string,
    id: number,
    a: { appName?: string; role?: string; expiredAt?: number | null },
  ) {
    await this.getApplication(tenant, id)
    await this.db.run(
      `UPDATE applications SET app_name = coalesce(?, app_name), role = coalesce(?, role),
         expired_at = CASE WHEN ? THEN ? ELSE expired_at END, update_at = ? WHERE tenant_id = ? AND id = ?`,
      [
        a.appName ?? null,
        a.role ?? null,
        a.expiredAt !== undefined ? 1 : 0,
        a.expiredAt ?? null,
        Date.now(),
        tenant,
        id,
      ],
    )
    return this.getApplication(tenant, id)
  }

  async deleteApplications(tenant: string, ids: number[]) {
    return this.deleteIn('applications', tenant, ids)
  }

  /** Deletes `ids` of a tenant-owned table, all or none: an id not in the tenant is NotFound. */
  private async deleteIn(table: 'applications', tenant: string, ids: number[]) {
    await this.requireAll(table, tenant, ids)
    const marks = ids.map(() => '?').join(',')
    await this.db.run(`DELETE FROM ${table} WHERE tenant_id = ? AND id IN (${marks})`, [
      tenant,
      ...ids,
    ])
  }

  /** NotFound('ids') unless every one of `ids` is a record of the tenant. */
  private async requireAll(table: 'users' | 'applications', tenant: string, ids: number[]) {
    const marks = ids.map(() => '?').join(',')
    const found = await this.db.one(
      `SELECT count(*) AS n FROM ${table} WHERE tenant_id = ? AND id IN (${marks})`,
      [tenant, ...ids],
    )
    if (Number(found?.n) !== ids.length) throw new NotFound('ids')
  }
}
