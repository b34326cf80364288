import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

export function productResourceRoutes(
  { meta, services }: Deps,
  { productResources: s }: WireShapes,
) {
  const detail = Form.of(s.ProductResource, s.productResourceWire.detail)
  return crud(new Router(), {
    tag: 'Product resources',
    path: '/product_resources',
    store: meta.productResources,
    service: services.productResources,
    list: {
      summary: 'List product resources',
      query: listQuery(s.productResourceFilters),
      form: detail,
    },
    detail: { summary: 'Product resource detail', form: detail },
    create: {
      summary: 'Create a product resource',
      body: s.ProductResourceCreate,
      form: Form.of(s.ProductResourceCreated, s.productResourceWire.created),
    },
    update: { summary: 'Edit a product resource', body: s.ProductResourceUpdate, form: detail },
    remove: { summary: 'Delete product resources' },
  })
}
