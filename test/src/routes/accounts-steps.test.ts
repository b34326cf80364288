/** The named steps of src/routes/accounts.ts as pure functions: a session's body, an application's expiry. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { expiryOf, sessionBody } from '../../../src/routes/accounts.ts'

const steps = suite('account route steps')

steps(
  'sessionBody :: the user by its wire names, the token, exp as a wire time in the zone',
  () => {
    const user = {
      id: 7,
      tenantID: 't1',
      role: 'admin',
      username: 'ann',
      email: 'ann@example.com',
      tokenVersion: 3,
    }
    const exp = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000
    assert.equal(sessionBody(user, { token: 'tok', exp }, 'UTC'), {
      userIntID: 7,
      username: 'ann',
      email: 'ann@example.com',
      tenantID: 't1',
      role: 'admin',
      token: 'tok',
      expiresAt: '2026-01-02 03:04:05',
    })
    assert.is(
      sessionBody(user, { token: 'tok', exp }, 'Asia/Shanghai').expiresAt,
      '2026-01-02 11:04:05',
    )
  },
)

steps(
  'expiryOf :: absent kept, null kept, a wire time in the zone as epoch ms, else refused',
  () => {
    assert.is(expiryOf(undefined, 'UTC'), undefined)
    assert.is(expiryOf(null, 'UTC'), null)
    assert.is(expiryOf('2026-01-02 03:04:05', 'UTC'), Date.UTC(2026, 0, 2, 3, 4, 5))
    assert.is(expiryOf('2026-01-02 11:04:05', 'Asia/Shanghai'), Date.UTC(2026, 0, 2, 3, 4, 5))
    assert.throws(
      () => expiryOf('tomorrow', 'UTC'),
      (e: { errors?: Record<string, string> }) => e.errors?.expiredAt === 'not a valid time',
    )
  },
)

steps.run()
