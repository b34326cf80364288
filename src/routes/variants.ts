/**
 * The routes whose shape varies between the API variants (devices, products, groups, policy bindings, logs,
 * commands), mounted for the variant served. Each route module is generic over its variant's declaration, so
 * each variant's handlers are checked against that variant's own forms: Variant A's plain calls here, Variant B's
 * adapter over Variant A's services in src/variant-b/http/.
 */
import type { Deps } from '../deps.ts'
import type { Router } from '../http/router.ts'
import { deviceAccessB } from '../variant-b/http/devices.ts'
import { withGroupDevices, withProductDevices } from '../variant-b/http/members.ts'
import type { ShapesA, ShapesB, WireShapes } from '../wire/shapes.ts'
import { commandRoutes } from './commands.ts'
import { deviceRoutes } from './devices.ts'
import { groupRoutes } from './groups.ts'
import { logRoutes } from './logs.ts'
import { policyRoutes } from './policies.ts'
import { productRoutes } from './products.ts'

/** The routers of the resources whose shape varies, in any variant. */
export interface VariantRoutes {
  products: Router
  devices: Router
  groups: Router
  policies: Router
  logs: Router
  commands: Router
}

/** Records as stored: Variant A adds nothing. */
const asStored = async <R>(_tenant: string, rows: R[]) => rows

/** Variant A: reads answer the stored records, bodies go to the services as they are. */
function variantA(deps: Deps, s: ShapesA): VariantRoutes {
  const { meta, services } = deps
  return {
    products: productRoutes(deps, { ...s.products, expand: asStored }),
    devices: deviceRoutes(deps, {
      ...s.devices,
      access: {
        list: (tenant, query, opts) => meta.devices.list(tenant, query, opts),
        get: (tenant, id) => meta.devices.get(tenant, id),
        text: {
          list: (tenant, query, shape, opts) => meta.devices.listText(tenant, query, shape, opts),
          get: (tenant, id, shape) => meta.devices.getText(tenant, id, shape),
        },
        create: (a, body) => services.devices.create(a, body),
        update: (a, id, body) => services.devices.update(a, id, body),
        remove: (a, ids) => services.devices.remove(a, ids),
      },
    }),
    groups: groupRoutes(deps, { ...s.groups, expand: asStored }),
    policies: policyRoutes(deps, s.policies),
    logs: logRoutes(deps, s.logs),
    commands: commandRoutes(deps, s.commands),
  }
}

/** Variant B: its devices mapped onto Variant A's device and gateway services, products and groups with `devices`. */
function variantB(deps: Deps, s: ShapesB): VariantRoutes {
  const { meta } = deps
  return {
    products: productRoutes(deps, {
      ...s.products,
      expand: (tenant, rows) => withProductDevices(meta, tenant, rows),
    }),
    devices: deviceRoutes(deps, { ...s.devices, access: deviceAccessB(deps) }),
    groups: groupRoutes(deps, {
      ...s.groups,
      expand: (tenant, rows) => withGroupDevices(meta, tenant, rows),
    }),
    policies: policyRoutes(deps, s.policies),
    logs: logRoutes(deps, s.logs),
    commands: commandRoutes(deps, s.commands),
  }
}

/** The varying routes of the variant `shapes` belong to. */
export function variantRoutes(deps: Deps, shapes: WireShapes): VariantRoutes {
  return shapes.variant === 'B' ? variantB(deps, shapes) : variantA(deps, shapes)
}
