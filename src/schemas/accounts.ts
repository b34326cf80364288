import { z } from 'zod'
import { name, enumCode, Int, NullableInt, Str, Timestamp, annotate } from './common.ts'
import { enumDoc } from '../enums.ts'
import { WIRE_TIME, WIRE_TIME_DOC } from '../kernel/time.ts'
import type { FilterFields } from '../http/paging.ts'

// zod's email pattern as a plain pattern: the document then states exactly what is accepted (a `format: email`
// beside it would be read by each client's own, different, email check)
const email = z
  .string({ error: 'must be an email address' })
  .regex(z.regexes.email, { error: 'must be an email address' })
  .max(200)
const password = z
  .string({ error: 'required, a string' })
  .min(8, { error: 'at least 8 characters' })
  .max(200)
const role = z.enum(['admin', 'user', 'viewer'], { error: 'must be admin, user or viewer' })

export const Login = z.object({
  email: z.string({ error: 'required' }).min(1, { error: 'required' }),
  password: z.string({ error: 'required' }).min(1, { error: 'required' }),
  remember: z.boolean({ error: 'must be true or false' }).optional(),
})
annotate(Login, {
  examples: [{ email: 'admin@devicecloud.local', password: 'change-me-now', remember: false }],
})

/** A signed-in user's own password change: the current password, and the new one (the rules of a user's). */
export const OwnPassword = z.object({
  oldPassword: z.string({ error: 'required' }).min(1, { error: 'required' }),
  password,
})

export const Signup = z.object({ email, username: name(50), password, tenantName: name(100) })
annotate(Signup, {
  examples: [
    {
      email: 'ops@example.com',
      username: 'ops',
      password: 'a-long-password',
      tenantName: 'Example Ltd',
    },
  ],
})

export const Session = z.object({
  userIntID: Int,
  username: Str,
  email: Str,
  tenantID: Str,
  role: Str,
  token: Str,
  expiresAt: Timestamp,
})

export const User = z.object({
  id: Int,
  username: Str,
  email: Str,
  role: Str,
  enable: Int.meta(enumDoc('userEnable')),
  enableLabel: Str,
  tenantID: Str,
  createAt: Timestamp,
  updateAt: Timestamp,
})

export const UserCreate = z.object({ username: name(50), email, password, role })
annotate(UserCreate, {
  examples: [
    {
      username: 'operator',
      email: 'operator@example.com',
      password: 'operator-pw-1',
      role: 'user',
    },
  ],
})
/** An edit; `enable` 0 disables the user (they cannot sign in, their tokens stop working), 1 enables them again. */
export const UserUpdate = UserCreate.partial().extend({ enable: enumCode('userEnable').optional() })
export const userFilters = {
  username: 'text',
  email: 'text',
  role: 'text',
  enable: 'int',
} satisfies FilterFields

const expiredAt = z
  .string({ error: 'must be YYYY-MM-DD HH:MM:SS' })
  .regex(WIRE_TIME, { error: 'must be YYYY-MM-DD HH:MM:SS' })
  .meta(WIRE_TIME_DOC)
  .nullish()

export const Application = z.object({
  id: Int,
  appName: Str,
  appID: Str,
  role: Str,
  expiredAt: Timestamp,
  userIntID: NullableInt,
  createAt: Timestamp,
  updateAt: Timestamp,
})
/** The create answer is the only time appToken is shown. */
export const ApplicationCreated = Application.extend({ appToken: Str })
export const ApplicationCreate = z.object({
  appName: name(50),
  role: role.default('user'),
  expiredAt,
})
annotate(ApplicationCreate, {
  examples: [{ appName: 'dashboard', role: 'viewer', expiredAt: '2030-12-31 23:59:59' }],
})
export const ApplicationUpdate = z.object({
  appName: name(50).optional(),
  role: role.optional(),
  expiredAt,
})
export const applicationFilters = {
  appName: 'text',
  appID: 'text',
  role: 'text',
} satisfies FilterFields
