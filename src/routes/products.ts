import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { ProductRecord } from '../../store/fields/products.ts'
import { Router } from '../http/router.ts'
import { listQuery, Page, type FilterFields } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import type { ProductCreate as Create, ProductUpdate as Update } from '../schemas/products.ts'
import type { RecordSerializer } from '../wire/shape.ts'
import { pageJson, removeRoute } from './pages.ts'

const tag = 'Products'

/**
 * The products of one variant: its forms (detail `D`, list item `L`), bodies (whose output the product service
 * takes), filters, and the serializers of `R`, a stored product as the variant answers it (`expand` adds what
 * the variant shows beside the stored fields).
 */
export interface ProductVariant<
  R,
  D extends z.ZodObject,
  L extends z.ZodObject,
  C extends Create,
  U extends Update,
> {
  Product: D
  ProductListItem: L
  ProductCreate: z.ZodType<C>
  ProductUpdate: z.ZodType<U>
  productFilters: FilterFields
  productWire: RecordSerializer<R, { detail: D; list: L }>
  expand(tenant: string, rows: ProductRecord[]): Promise<R[]>
}

export function productRoutes<
  R,
  D extends z.ZodObject,
  L extends z.ZodObject,
  C extends Create,
  U extends Update,
>({ meta, services }: Deps, v: ProductVariant<R, D, L, C, U>) {
  const { Product, ProductCreate, ProductListItem, ProductUpdate, productFilters, productWire } = v
  const one = async (tenant: string, row: ProductRecord) => (await v.expand(tenant, [row]))[0]!
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
      const rows = await v.expand(c.get('tenant'), items)
      return pageJson(c, { items: rows, count }, productWire.list, query)
    },
  )

  r.typed(
    { method: 'get', path: '/products/:id', tag, summary: 'Product detail', response: Product },
    async (c, { id }) => {
      const product = await one(c.get('tenant'), await meta.products.get(c.get('tenant'), id))
      return c.json(productWire.detail(product, wireCtx(c)))
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
      const created = await one(c.get('tenant'), await services.products.create(actorOf(c), body))
      return c.json(productWire.detail(created, wireCtx(c)), 201)
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
      const updated = await services.products.update(actorOf(c), id, body)
      return c.json(productWire.detail(await one(c.get('tenant'), updated), wireCtx(c)))
    },
  )

  removeRoute(
    r,
    { path: '/products', tag, summary: 'Delete products (refused while used)' },
    (a, ids) => services.products.remove(a, ids),
  )

  return r
}
