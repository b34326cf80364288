import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Products'

export function productRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const { Product, ProductCreate, ProductListItem, ProductUpdate, productFilters, productWire } =
    shapes.products
  const { expand } = shapes.products
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/products',
      tag,
      summary: 'List products',
      query: listQuery(productFilters),
      response: Page(ProductListItem),
    },
    async (c, { query }) => {
      const { items, count } = await meta.products.list(c.get('tenant'), query)
      const rows = await expand(meta, c.get('tenant'), items)
      return c.json(
        pageOf(
          rows.map((p) => productWire.list(p, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    { method: 'get', path: '/products/:id', tag, summary: 'Product detail', response: Product },
    async (c, { id }) => {
      const [product] = await expand(meta, c.get('tenant'), [
        await meta.products.get(c.get('tenant'), id),
      ])
      return c.json(productWire.detail(product!, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/products',
      tag,
      summary: 'Create a product',
      body: ProductCreate,
      response: Product,
      status: 201,
    },
    async (c, { body }) => {
      const [created] = await expand(meta, c.get('tenant'), [
        await services.products.create(actorOf(c), body),
      ])
      return c.json(productWire.detail(created!, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/products/:id',
      tag,
      summary: 'Edit a product',
      body: ProductUpdate,
      response: Product,
    },
    async (c, { id, body }) => {
      const [updated] = await expand(meta, c.get('tenant'), [
        await services.products.update(actorOf(c), id, body),
      ])
      return c.json(productWire.detail(updated!, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/products',
      tag,
      summary: 'Delete products (refused while used)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.products.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
