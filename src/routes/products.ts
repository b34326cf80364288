import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { ProductRecord } from '../../store/fields/products.ts'
import { Router } from '../http/router.ts'
import type { FilterFields } from '../http/paging.ts'
import type { ProductCreate as Create, ProductUpdate as Update } from '../schemas/products.ts'
import type { RecordSerializer } from '../wire/shape.ts'
import { expandedRoutes, type WireForm } from './records.ts'

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
  expand(tenant: string, rows: ProductRecord[]): Promise<R[]>
}

export function productRoutes<
  R,
  D extends WireForm,
  L extends WireForm,
  C extends Create,
  U extends Update,
>({ meta, services }: Deps, v: ProductVariant<R, D, L, C, U>) {
  const r = new Router()
  expandedRoutes(r, {
    tag: 'Products',
    path: '/products',
    summaries: {
      list: 'List products',
      detail: 'Product detail',
      create: 'Create a product',
      update: 'Edit a product',
      remove: 'Delete products (refused while used)',
    },
    detail: v.Product,
    list: v.ProductListItem,
    create: v.ProductCreate,
    update: v.ProductUpdate,
    filters: v.productFilters,
    wire: v.productWire,
    expand: v.expand,
    read: meta.products,
    write: services.products,
  })
  return r
}
