import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { ProductRecord } from '../../store/fields/products.ts'
import { Router } from '../http/router.ts'
import { listQuery, type FilterFields } from '../http/paging.ts'
import { crud, expanded, Form, type WireForm } from '../http/crud.ts'
import type { ProductCreate as Create, ProductUpdate as Update } from '../schemas/products.ts'
import type { RecordSerializer } from '../wire/shape.ts'

/**
 * The products of one variant: its forms (detail `D`, list item `L`), bodies (whose output the product service
 * takes), filters, and the serializers of `R`, a stored product as the variant answers it (`expand` adds what
 * the variant shows beside the stored fields).
 */
export interface ProductVariant<
  R,
  D extends WireForm,
  L extends WireForm,
  C extends Create,
  U extends Update,
> {
  Product: D
  ProductListItem: L
  ProductCreate: z.ZodType<C>
  ProductUpdate: z.ZodType<U>
  productFilters: FilterFields
  productWire: RecordSerializer<R, { detail: D; list: L }>
  expand: (tenant: string, rows: ProductRecord[]) => Promise<R[]>
}

export function productRoutes<
  R,
  D extends WireForm,
  L extends WireForm,
  C extends Create,
  U extends Update,
>({ meta, services }: Deps, v: ProductVariant<R, D, L, C, U>) {
  const detail = Form.of(v.Product, v.productWire.detail)
  const item = Form.of(v.ProductListItem, v.productWire.list)
  return crud(new Router(), {
    tag: 'Products',
    path: '/products',
    ...expanded(meta.products, services.products, v.expand),
    list: { summary: 'List products', query: listQuery(v.productFilters), form: item },
    detail: { summary: 'Product detail', form: detail },
    create: { summary: 'Create a product', body: v.ProductCreate, form: detail },
    update: { summary: 'Edit a product', body: v.ProductUpdate, form: detail },
    remove: { summary: 'Delete products (refused while used)' },
  })
}
