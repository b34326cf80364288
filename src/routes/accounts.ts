import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx, type AppEnv } from '../http/env.ts'
import { formatTime, parseTime } from '../kernel/time.ts'
import { hashPassword, hashToken, randomId, verifyPassword } from '../kernel/secrets.ts'
import * as s from '../schemas/accounts.ts'
import { applicationWire, userWire } from '../wire/accounts.ts'

/** Login, signup, users and applications (CONTRACT §2). */
export function accountRoutes({ meta, auth, config }: Deps) {
  const r = new Router()
  const tag = 'Accounts'

  const session = async (
    c: Context<AppEnv>,
    user: { id: number; tenantID: string; role: string; username: string; email: string },
    remember?: boolean,
  ) => {
    const { token, exp } = auth.issue(user, remember)
    const { id: userIntID, username, email, tenantID, role } = user
    return c.json(
      {
        userIntID,
        username,
        email,
        tenantID,
        role,
        token,
        expiresAt: formatTime(exp * 1000, config.TIMEZONE),
      },
      201,
    )
  }

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
    },
    async (c, { body }) => {
      const user = await meta.accounts.userByEmail(body.email)
      if (!user) {
        await hashPassword(body.password) // same work as a real check: timing does not reveal unknown emails
        throw new ApiError('AUTH_FAILED', { email: 'no user with this email' })
      }
      if (!(await verifyPassword(body.password, user.passwordHash)))
        throw new ApiError('AUTH_FAILED', { password: 'wrong password' })
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
    },
    async (c, { body }) => {
      if (!config.ALLOW_SIGNUP)
        throw new ApiError('PERMISSION_DENIED', { signup: 'signup is disabled on this service' })
      const tenantID = `T${randomId(9)}`
      const passwordHash = await hashPassword(body.password)
      const id = await meta.accounts.createTenant(
        { tenantID, tenantName: body.tenantName },
        { ...body, passwordHash },
      )
      return session(c, { id, tenantID, role: 'admin', username: body.username, email: body.email })
    },
  )

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
      const user = await meta.accounts.createUser(c.get('tenant'), {
        ...body,
        passwordHash: await hashPassword(body.password),
      })
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
      const passwordHash = body.password ? await hashPassword(body.password) : undefined
      const user = await meta.accounts.updateUser(c.get('tenant'), id, { ...body, passwordHash })
      auth.forget(id)
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
      if (query.ids.includes(c.get('caller').userIntID ?? -1))
        throw new ApiError('REFERENCED_ERROR', { ids: 'you cannot delete yourself' })
      await meta.accounts.deleteUsers(c.get('tenant'), query.ids)
      query.ids.forEach((id) => auth.forget(id))
      return c.body(null, 204)
    },
  )

  const expiry = (text: string | null | undefined) => {
    if (text === undefined) return undefined
    if (text === null) return null
    const ms = parseTime(text, config.TIMEZONE)
    if (ms === null) throw new ApiError('FORM_INVALID', { expiredAt: 'not a valid time' })
    return ms
  }

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
      const appToken = randomId(40)
      const app = await meta.accounts.createApplication(c.get('tenant'), {
        appName: body.appName,
        role: body.role,
        appID: `A${randomId(15)}`,
        tokenHash: hashToken(appToken),
        expiredAt: expiry(body.expiredAt) ?? null,
        userIntID: c.get('caller').userIntID,
      })
      return c.json(applicationWire.created({ ...app, appToken }, wireCtx(c)), 201)
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
      const app = await meta.accounts.updateApplication(c.get('tenant'), id, {
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
      await meta.accounts.deleteApplications(c.get('tenant'), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
