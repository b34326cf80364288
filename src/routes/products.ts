import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  Product,
  ProductCreate,
  ProductListItem,
  ProductUpdate,
  productFilters,
} from '../schemas/products.ts'
import { productWire } from '../wire/products.ts'

const tag = 'Products'

export function productRoutes({ meta, bus }: Deps) {
  const r = new Router()

  r.route(
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
      return c.json(
        pageOf(
          items.map((p) => productWire.list(p, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    { method: 'get', path: '/products/:id', tag, summary: 'Product detail', response: Product },
    async (c, { id }) =>
      c.json(productWire.detail(await meta.products.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
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
      const created = await meta.products.create(c.get('tenant'), c.get('caller').userIntID, body)
      return c.json(productWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/products/:id',
      tag,
      summary: 'Edit a product',
      body: ProductUpdate,
      response: Product,
    },
    async (c, { id, body }) => {
      const updated = await meta.products.update(c.get('tenant'), id, body)
      bus.emit('model.changed', { tenantID: c.get('tenant'), productIntID: id })
      return c.json(productWire.detail(updated, wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/products',
      tag,
      summary: 'Delete products (refused while used)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await meta.products.delete(c.get('tenant'), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
