import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { assertValid, productUnchanged } from '../rules/product-model.ts'

const tag = 'Product resources'

export function productResourceRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const {
    ProductResource,
    ProductResourceCreate,
    ProductResourceCreated,
    ProductResourceUpdate,
    productResourceFilters,
    productResourceWire,
  } = shapes.productResources
  const r = new Router()
  const resources = meta.productResources

  r.typed(
    {
      method: 'get',
      path: '/product_resources',
      tag,
      summary: 'List product resources',
      query: listQuery(productResourceFilters),
      response: Page(ProductResource),
    },
    async (c, { query }) => {
      const { items, count } = await resources.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((x) => productResourceWire.detail(x, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/product_resources/:id',
      tag,
      summary: 'Product resource detail',
      response: ProductResource,
    },
    async (c, { id }) =>
      c.json(productResourceWire.detail(await resources.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'post',
      path: '/product_resources',
      tag,
      summary: 'Create a product resource',
      body: ProductResourceCreate,
      response: ProductResourceCreated,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.productResources.create(actorOf(c), body)
      return c.json(productResourceWire.created(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/product_resources/:id',
      tag,
      summary: 'Edit a product resource',
      body: ProductResourceUpdate,
      response: ProductResource,
    },
    async (c, { id, body }) => {
      const updated = await services.productResources.update(actorOf(c), id, body)
      return c.json(productResourceWire.detail(updated, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/product_resources',
      tag,
      summary: 'Delete product resources',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.productResources.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
