import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { assertValid, productUnchanged } from '../rules/product-model.ts'

const tag = 'App templates'

/** App templates and the device console (the templates of a device's product). */
export function appTemplateRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const {
    AppTemplate,
    AppTemplateCreate,
    AppTemplateUpdate,
    ConsoleTemplate,
    appTemplateFilters,
    appTemplateWire,
  } = shapes.appTemplates
  const r = new Router()
  const templates = meta.appTemplates

  r.typed(
    {
      method: 'get',
      path: '/app_templates',
      tag,
      summary: 'List app templates',
      query: listQuery(appTemplateFilters),
      response: Page(AppTemplate),
    },
    async (c, { query }) => {
      const { items, count } = await templates.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((x) => appTemplateWire.detail(x, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/app_templates/:id',
      tag,
      summary: 'App template detail',
      response: AppTemplate,
    },
    async (c, { id }) =>
      c.json(appTemplateWire.detail(await templates.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'post',
      path: '/app_templates',
      tag,
      summary: 'Create an app template',
      body: AppTemplateCreate,
      response: AppTemplate,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.appTemplates.create(actorOf(c), body)
      return c.json(appTemplateWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/app_templates/:id',
      tag,
      summary: 'Edit an app template',
      body: AppTemplateUpdate,
      response: AppTemplate,
    },
    async (c, { id, body }) => {
      const updated = await services.appTemplates.update(actorOf(c), id, body)
      return c.json(appTemplateWire.detail(updated, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/app_templates',
      tag,
      summary: 'Delete app templates',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.appTemplates.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/device_consoles/:id',
      tag,
      summary: "The app templates of a device's product, with the current value",
      query: listQuery(appTemplateFilters),
      response: Page(ConsoleTemplate),
    },
    async (c, { id, query }) => {
      const { items, count } = await templates.ofDevice(c.get('tenant'), id, query)
      return c.json(
        pageOf(
          items.map((x) => appTemplateWire.console(x, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  return r
}
