import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { ApiError } from '../errors.ts'
import { Forbidden } from '../kernel/errors.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx, type AppEnv } from '../http/env.ts'
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
  userReadRoutes(r, deps, shapes)
  userWriteRoutes(r, deps, shapes)
  applicationReadRoutes(r, deps, shapes)
  applicationWriteRoutes(r, deps, shapes)
  return r
}

/** Login and signup: each issues a session. */
function sessionRoutes(r: Router, { services, auth, config }: Deps) {
  const session = (c: Context<AppEnv>, user: SessionUser, remember?: boolean) =>
    c.json(sessionBody(user, auth.issue(user, remember), config.TIMEZONE), 201)

  r.route(
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
      const user = await services.accounts.authenticate(body.email, body.password, address)
      return session(c, user, body.remember)
    },
  )

  r.route(
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
  r.route(
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

  r.route(
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

/** Reading the tenant's users (admins only, as every user route). */
function userReadRoutes(r: Router, { meta }: Deps, shapes: WireShapes) {
  const { userWire } = shapes.accounts
  r.route(
    {
      method: 'get',
      path: '/users',
      tag,
      summary: 'List users of the tenant',
      admin: true,
      query: listQuery(s.userFilters),
      response: Page(s.User),
    },
    async (c, { query }) => {
      const { items, count } = await meta.accounts.listUsers(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((u) => userWire.detail(u, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )
  r.route(
    {
      method: 'get',
      path: '/users/:id',
      tag,
      summary: 'User detail',
      admin: true,
      response: s.User,
    },
    async (c, { id }) =>
      c.json(userWire.detail(await meta.accounts.getUser(c.get('tenant'), id), wireCtx(c))),
  )
}

/** Creating, editing and deleting users. */
function userWriteRoutes(r: Router, { services }: Deps, shapes: WireShapes) {
  const { userWire } = shapes.accounts
  r.route(
    {
      method: 'post',
      path: '/users',
      tag,
      summary: 'Create a user',
      admin: true,
      body: s.UserCreate,
      response: s.User,
      status: 201,
    },
    async (c, { body }) => {
      const user = await services.accounts.createUser(actorOf(c), body)
      return c.json(userWire.detail(user, wireCtx(c)), 201)
    },
  )
  r.route(
    {
      method: 'put',
      path: '/users/:id',
      tag,
      summary: 'Edit a user',
      admin: true,
      body: s.UserUpdate,
      response: s.User,
    },
    async (c, { id, body }) => {
      const user = await services.accounts.updateUser(actorOf(c), id, body)
      return c.json(userWire.detail(user, wireCtx(c)))
    },
  )
  r.route(
    {
      method: 'delete',
      path: '/users',
      tag,
      summary: 'Delete users',
      admin: true,
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.accounts.removeUsers(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )
}

/** Reading the tenant's applications (API keys; admins only, as every application route). */
function applicationReadRoutes(r: Router, { meta }: Deps, shapes: WireShapes) {
  const { applicationWire } = shapes.accounts

  r.route(
    {
      method: 'get',
      path: '/applications',
      tag,
      summary: 'List applications (API keys)',
      admin: true,
      query: listQuery(s.applicationFilters),
      response: Page(s.Application),
    },
    async (c, { query }) => {
      const { items, count } = await meta.accounts.listApplications(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((a) => applicationWire.detail(a, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )
  r.route(
    {
      method: 'get',
      path: '/applications/:id',
      tag,
      summary: 'Application detail',
      admin: true,
      response: s.Application,
    },
    async (c, { id }) =>
      c.json(
        applicationWire.detail(await meta.accounts.getApplication(c.get('tenant'), id), wireCtx(c)),
      ),
  )
}

/** Creating, editing and deleting applications (the token shown once on create). */
function applicationWriteRoutes(r: Router, { services, config }: Deps, shapes: WireShapes) {
  const { applicationWire } = shapes.accounts
  const expiry = (text: string | null | undefined) => expiryOf(text, config.TIMEZONE)

  r.route(
    {
      method: 'post',
      path: '/applications',
      tag,
      summary: 'Create an application; the answer shows appToken once',
      admin: true,
      body: s.ApplicationCreate,
      response: s.ApplicationCreated,
      status: 201,
    },
    async (c, { body }) => {
      const app = await services.accounts.createApplication(actorOf(c), {
        appName: body.appName,
        role: body.role,
        expiredAt: expiry(body.expiredAt) ?? null,
      })
      return c.json(applicationWire.created(app, wireCtx(c)), 201)
    },
  )
  r.route(
    {
      method: 'put',
      path: '/applications/:id',
      tag,
      summary: 'Edit an application',
      admin: true,
      body: s.ApplicationUpdate,
      response: s.Application,
    },
    async (c, { id, body }) => {
      const app = await services.accounts.updateApplication(actorOf(c), id, {
        ...body,
        expiredAt: expiry(body.expiredAt),
      })
      return c.json(applicationWire.detail(app, wireCtx(c)))
    },
  )
  r.route(
    {
      method: 'delete',
      path: '/applications',
      tag,
      summary: 'Delete applications',
      admin: true,
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.accounts.removeApplications(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )
}
