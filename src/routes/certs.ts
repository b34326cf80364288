import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Certificates'

export function certRoutes(deps: Deps, shapes: WireShapes) {
  const { meta, services } = deps
  const {
    Cert,
    CertCreate,
    CertDevice,
    CertDevicesBind,
    CertListItem,
    CertUpdate,
    certDeviceFilters,
    certFilters,
    certWire,
  } = shapes.certs
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/certs',
      tag,
      summary: 'List certificates',
      query: listQuery(certFilters),
      response: Page(CertListItem),
    },
    async (c, { query }) => {
      const { items, count } = await meta.certs.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((x) => certWire.list(x, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/certs/:id',
      tag,
      summary: 'Certificate detail with its PEM texts',
      response: Cert,
    },
    async (c, { id }) =>
      c.json(certWire.detail(await meta.certs.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'post',
      path: '/certs',
      tag,
      summary: "Issue a client certificate signed by the tenant's CA",
      body: CertCreate,
      response: Cert,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.certs.create(actorOf(c), body)
      return c.json(certWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/certs/:id',
      tag,
      summary: 'Edit a certificate (name, enable; CN and PEM texts are fixed)',
      body: CertUpdate,
      response: Cert,
    },
    async (c, { id, body }) => {
      return c.json(certWire.detail(await services.certs.update(actorOf(c), id, body), wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/certs',
      tag,
      summary: 'Delete certificates (refused while bound to devices)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.certs.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  deviceBindingRoutes(r, deps, shapes.certs)
  return r
}

function deviceBindingRoutes(
  r: Router,
  { meta, services }: Deps,
  { CertDevice, CertDevicesBind, certDeviceFilters, certWire }: WireShapes['certs'],
) {
  const deviceQuery = listQuery(certDeviceFilters)
  r.typed(
    {
      method: 'get',
      path: '/certs/:id/devices',
      tag,
      summary: 'Devices bound to a certificate',
      query: deviceQuery,
      response: Page(CertDevice),
    },
    async (c, { id, query }) => {
      const { items, count } = await meta.certs.devices(c.get('tenant'), id, query)
      return c.json(
        pageOf(
          items.map((x) => certWire.device(x, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/certs/:id/devices',
      tag,
      summary: 'Bind devices to a certificate (binding twice is no change)',
      description: 'Answers with the first page of the devices bound to the certificate.',
      body: CertDevicesBind,
      response: Page(CertDevice),
      status: 201,
    },
    async (c, { id, body }) => {
      const tenant = c.get('tenant')
      await services.certs.bindDevices(actorOf(c), id, body.devicesIntID)
      const first = { page: 1, limit: 10, filters: [] }
      const { items, count } = await meta.certs.devices(tenant, id, first)
      return c.json(
        pageOf(
          items.map((x) => certWire.device(x, wireCtx(c))),
          count,
          first,
        ),
        201,
      )
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/certs/:id/devices',
      tag,
      summary: 'Unbind devices (device record ids)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await services.certs.unbindDevices(actorOf(c), id, query.ids)
      return c.body(null, 204)
    },
  )
}
