/**
 * `npm run reset-admin [-- <email>]`: a way back from a lost admin password. With the service's own settings
 * (DATA_DIR or DATABASE_URL), sets a new password for the admin with that email, or else the first admin created:
 * ADMIN_PASSWORD when set, otherwise a generated one printed once. That admin's tokens are revoked (a running
 * service notices within 5 s) and their login locks cleared. Safe while the service runs.
 */
import { loadConfig } from '../kernel/config.ts'
import { resetAdminPassword } from '../bootstrap.ts'
import { openMetaStore } from '../../store/index.ts'

async function main() {
  const email = process.argv[2]
  const config = loadConfig()
  const meta = await openMetaStore(config)
  try {
    const done = await resetAdminPassword(config, meta.accounts, email)
    console.log(
      `[devicecloud] new password set for the admin ${done.email} (tenant ${done.tenantID}); their tokens are revoked`,
    )
    if (done.password)
      console.log(`[devicecloud] its generated password, shown once: ${done.password}`)
  } finally {
    await meta.close()
  }
}

main().catch((e: unknown) => {
  console.error(`[devicecloud] reset-admin: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
