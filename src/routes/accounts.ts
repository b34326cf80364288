import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { ApiError } from '../errors.ts'
import { Forbidden } from '../kernel/errors.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'
import type { AppEnv } from '../http/env.ts'
import { formatTime, parseTime } from '../kernel/time.ts'
import * as s from '../schemas/accounts.ts'

/** A signed-in user as a session is issued for it. */
export interface SessionUser {
  id: number
  tenantID: string
  role: string
  username: string
  email: string
  tokenVersion?: number
}

/** The body of a new session (login, signup): the user, its token and when it expires (`exp`, epoch s). */
export function sessionBody(
  user: SessionUser,
  issued: { token: string; exp: number },
  timezone: string,
) {
  const { id: userIntID, username, email, tenantID, role } = user
  return {
    userIntID,
    username,
    email,
    tenantID,
    role,
    token: issued.token,
    expiresAt: formatTime(issued.exp * 1000, timezone),
  }
}

/**
 * An application's `expiredAt` as the request gave it, in epoch ms: undefined (left as is) and null (never)
 * kept, a wire time parsed in `timezone`; anything else is 422 `errors.expiredAt`.
 */
export function expiryOf(text: string | null | undefined, timezone: string) {
  if (text === undefined) return undefined
  if (text === null) return null
  const ms = parseTime(text, timezone)
  if (ms === null) throw new ApiError('FORM_INVALID', { expiredAt: 'not a valid time' })
  return ms
}

const tag = 'Accounts'

/** Login, signup, users and applications. */
export function accountRoutes(deps: Deps, shapes: WireShapes) {
  const r = new Router()
  sessionRoutes(r, deps)
  ownCredentialRoutes(r, deps)
  userRoutes(r, deps, shapes)
  applicationRoutes(r, deps, shapes)
  return r
}

/** Login and signup: each issues a session. */
function sessionRoutes(r: Router, { services, auth, config }: Deps) {
  const session = (c: Context<AppEnv>, user: SessionUser, remember?: boolean) =>
    c.json(sessionBody(user, auth.issue(user, remember), config.TIMEZONE), 201)

  r.typed(
    {
      method: 'post',
      path: '/login',
      tag,
      summary: 'Log in with email and password',
      body: s.Login,
      response: s.Session,
      status: 201,
      public: true,
      errors: [401, 429],
    },
    async (c, { body }) => {
      const address = c.get('clientAddress') ?? 'unknown'
      const user = await services.accounts.authenticate(
        body.email,
        body.password,
        address,
        c.get('requestId'),
      )
      return session(c, user, body.remember)
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/signup',
      tag,
      summary: 'Create a tenant and its admin (ALLOW_SIGNUP=true)',
      body: s.Signup,
      response: s.Session,
      status: 201,
      public: true,
      errors: [403],
    },
    async (c, { body }) => {
      if (!config.ALLOW_SIGNUP) throw new Forbidden('signup', 'signup is disabled on this service')
      return session(c, await services.accounts.signup(body))
    },
  )
}

/** What a signed-in caller does with its own credentials: log out, change its password. */
function ownCredentialRoutes(r: Router, { services }: Deps) {
  r.typed(
    {
      method: 'post',
      path: '/logout',
      tag,
      summary: 'Revoke the token of this request',
      description: 'Other tokens of the user stay valid. Applications log out by being deleted.',
      status: 204,
      viewerMayWrite: true,
    },
    async (c) => {
      const token = c.get('caller').token
      if (!token)
        throw new ApiError('BAD_REQUEST', { authorization: 'only a user token can log out' })
      await services.accounts.revokeToken(token.id, token.expiresAt)
      return c.body(null, 204)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/users/me/password',
      tag,
      summary: 'Change your own password',
      description:
        'Any signed-in user, viewers included (applications: 403). A wrong `oldPassword` is 422 ' +
        '`errors.oldPassword` and counts as a failed login (429 after too many). The token of this request ' +
        'keeps working; every other token of the user is revoked.',
      body: s.OwnPassword,
      status: 204,
      viewerMayWrite: true,
      errors: [403, 429],
    },
    async (c, { body }) => {
      const caller = c.get('caller')
      if (caller.kind !== 'user' || caller.userIntID === null || !caller.token)
        throw new Forbidden('authorization', 'only a signed-in user changes their own password')
      const address = c.get('clientAddress') ?? 'unknown'
      await services.accounts.changeOwnPassword(caller.userIntID, body, caller.token.id, address)
      return c.body(null, 204)
    },
  )
}

/** The tenant's users (admins only, as every user route). */
function userRoutes(r: Router, { meta, services }: Deps, shapes: WireShapes) {
  const user = Form.of(s.User, shapes.accounts.userWire.detail)
  crud(r, {
    tag,
    path: '/users',
    admin: true,
    list: {
      summary: 'List users of the tenant',
      query: listQuery(s.userFilters),
      form: user,
      read: (tenant, query) => meta.accounts.listUsers(tenant, query),
    },
    detail: { summary: 'User detail', form: user, read: (t, id) => meta.accounts.getUser(t, id) },
    create: {
      summary: 'Create a user',
      body: s.UserCreate,
      form: user,
      write: (actor, body) => services.accounts.createUser(actor, body),
    },
    update: {
      summary: 'Edit a user',
      body: s.UserUpdate,
      form: user,
      write: (actor, id, body) => services.accounts.updateUser(actor, id, body),
    },
    remove: { summary: 'Delete users', write: (a, ids) => services.accounts.removeUsers(a, ids) },
  })
}

/** The tenant's applications (API keys; admins only): the token is shown once, on create. */
function applicationRoutes(r: Router, { meta, services, config }: Deps, shapes: WireShapes) {
  const { applicationWire } = shapes.accounts
  const application = Form.of(s.Application, applicationWire.detail)
  const expiry = (text: string | null | undefined) => expiryOf(text, config.TIMEZONE)
  crud(r, {
    tag,
    path: '/applications',
    admin: true,
    list: {
      summary: 'List applications (API keys)',
      query: listQuery(s.applicationFilters),
      form: application,
      read: (tenant, query) => meta.accounts.listApplications(tenant, query),
    },
    detail: {
      summary: 'Application detail',
      form: application,
      read: (tenant, id) => meta.accounts.getApplication(tenant, id),
    },
    create: {
      summary: 'Create an application; the answer shows appToken once',
      body: s.ApplicationCreate,
      form: Form.of(s.ApplicationCreated, applicationWire.created),
      write: (actor, { appName, role, expiredAt }) =>
        services.accounts.createApplication(actor, {
          appName,
          role,
          expiredAt: expiry(expiredAt) ?? null,
        }),
    },
    update: {
      summary: 'Edit an application',
      body: s.ApplicationUpdate,
      form: application,
      write: (actor, id, body) =>
        services.accounts.updateApplication(actor, id, {
          ...body,
          expiredAt: expiry(body.expiredAt),
        }),
    },
    remove: {
      summary: 'Delete applications',
      write: (actor, ids) => services.accounts.removeApplications(actor, ids),
    },
  })
}
