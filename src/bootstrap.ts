import type { Config } from './kernel/config.ts'
import type { AccountRepository } from '../store/types.ts'
import { hashPassword, randomId } from './kernel/secrets.ts'

/** The JWT secret: JWT_SECRET, or a random one kept in the metadata store so tokens survive restarts. */
export async function jwtSecret(config: Config, accounts: AccountRepository): Promise<string> {
  return config.JWT_SECRET ?? accounts.settingOnce('jwt_secret', randomId(48))
}

/**
 * Creates the first tenant and its admin when no user exists. Returns the generated password
 * when one was generated, so that it can be shown exactly once.
 */
export async function ensureFirstAdmin(config: Config, accounts: AccountRepository) {
  if ((await accounts.userCount()) > 0) return undefined
  const password = config.ADMIN_PASSWORD ?? randomId(16)
  const tenantID = `T${randomId(9)}`
  await accounts.createTenant(
    { tenantID, tenantName: 'default' },
    { username: 'admin', email: config.ADMIN_EMAIL, passwordHash: await hashPassword(password) },
  )
  return {
    email: config.ADMIN_EMAIL,
    tenantID,
    password: config.ADMIN_PASSWORD ? undefined : password,
  }
}

/**
 * Sets a new password for an admin, the one with `email` or else the first admin created, enables them, revokes their
 * tokens and clears their login locks (`npm run reset-admin`). The password is ADMIN_PASSWORD, or a generated one
 * answered to be shown once. Throws when there is no such admin.
 */
export async function resetAdminPassword(
  config: Config,
  accounts: AccountRepository,
  email?: string,
): Promise<{ email: string; tenantID: string; password?: string }> {
  const user = email ? await accounts.userByEmail(email) : await accounts.firstAdmin()
  if (!user) throw new Error(email ? `no user with the email ${email}` : 'no admin user yet')
  if (user.role !== 'admin') throw new Error(`${user.email} is not an admin`)
  const password = config.ADMIN_PASSWORD ?? randomId(16)
  await accounts.setPassword(user.id, await hashPassword(password), null)
  await accounts.clearLoginFailures(user.email)
  return {
    email: user.email,
    tenantID: user.tenantID,
    password: config.ADMIN_PASSWORD ? undefined : password,
  }
}
