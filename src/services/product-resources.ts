import type { AppTemplateCreate, AppTemplateUpdate } from '../schemas/app-templates.ts'
import type { ProductResourceCreate, ProductResourceUpdate } from '../schemas/product-resources.ts'
import { assertValid, productUnchanged } from '../rules/product-model.ts'
import type { Actor, ServiceDeps } from './types.ts'

/** What a product offers besides its data model: product resources and app (device console) templates. */
export function productResourceService({ meta }: ServiceDeps) {
  const productResources = {
    async create(a: Actor, body: ProductResourceCreate) {
      const product = await meta.productResources.product(a.tenant, body.productIntID)
      return meta.productResources.create(a.tenant, a.userIntID, product.id, body)
    },
    async update(a: Actor, id: number, body: ProductResourceUpdate) {
      const current = await meta.productResources.get(a.tenant, id)
      assertValid(productUnchanged('productIntID', body.productIntID, current.productIntID))
      return meta.productResources.update(a.tenant, id, body)
    },
    remove: (a: Actor, ids: number[]) => meta.productResources.delete(a.tenant, ids),
  }

  const appTemplates = {
    async create(a: Actor, body: AppTemplateCreate) {
      const product = await meta.appTemplates.product(a.tenant, body.productID)
      return meta.appTemplates.create(a.tenant, a.userIntID, product.id, body)
    },
    async update(a: Actor, id: number, body: AppTemplateUpdate) {
      const current = await meta.appTemplates.get(a.tenant, id)
      assertValid(productUnchanged('productID', body.productID, current.productID))
      return meta.appTemplates.update(a.tenant, id, body)
    },
    remove: (a: Actor, ids: number[]) => meta.appTemplates.delete(a.tenant, ids),
  }

  return { productResources, appTemplates }
}
