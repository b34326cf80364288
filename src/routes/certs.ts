import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import { formInvalid } from '../errors.ts'
import {
  Cert,
  CertCreate,
  CertDevice,
  CertDevicesBind,
  CertListItem,
  CertUpdate,
  certDeviceFilters,
  certFilters,
} from '../schemas/certs.ts'
import { certImmutableChanges } from '../rules/certs.ts'
import { certWire } from '../wire/certs.ts'

const tag = 'Certificates'
const deviceQuery = listQuery(certDeviceFilters)

export function certRoutes({ meta }: Deps) {
  const r = new Router()

  r.route(
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

  r.route(
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

  r.route(
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
      const created = await meta.certs.create(c.get('tenant'), c.get('caller').userIntID, body)
      return c.json(certWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/certs/:id',
      tag,
      summary: 'Edit a certificate (name, enable; CN and PEM texts are fixed)',
      body: CertUpdate,
      response: Cert,
    },
    async (c, { id, body }) => {
      const tenant = c.get('tenant')
      const errors = certImmutableChanges(await meta.certs.get(tenant, id), body)
      if (Object.keys(errors).length) throw formInvalid(errors)
      return c.json(certWire.detail(await meta.certs.update(tenant, id, body), wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/certs',
      tag,
      summary: 'Delete certificates (refused while bound to devices)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await meta.certs.delete(c.get('tenant'), query.ids)
      return c.body(null, 204)
    },
  )

  deviceBindingRoutes(r, meta)
  return r
}

function deviceBindingRoutes(r: Router, meta: Deps['meta']) {
  r.route(
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

  r.route(
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
      await meta.certs.bindDevices(tenant, id, body.devicesIntID)
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

  r.route(
    {
      method: 'delete',
      path: '/certs/:id/devices',
      tag,
      summary: 'Unbind devices (device record ids)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await meta.certs.unbindDevices(c.get('tenant'), id, query.ids)
      return c.body(null, 204)
    },
  )
}
