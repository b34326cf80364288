import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

const tag = 'Certificates'

export function certRoutes(deps: Deps, shapes: WireShapes) {
  const { meta, services } = deps
  const s = shapes.certs
  const detail = Form.of(s.Cert, s.certWire.detail)
  const r = crud(new Router(), {
    tag,
    path: '/certs',
    store: meta.certs,
    service: services.certs,
    list: {
      summary: 'List certificates',
      query: listQuery(s.certFilters),
      form: Form.of(s.CertListItem, s.certWire.list),
    },
    detail: { summary: 'Certificate detail with its PEM texts', form: detail },
    create: {
      summary: "Issue a client certificate signed by the tenant's CA",
      body: s.CertCreate,
      form: detail,
    },
    update: {
      summary: 'Edit a certificate (name, enable; CN and PEM texts are fixed)',
      body: s.CertUpdate,
      form: detail,
    },
    remove: { summary: 'Delete certificates (refused while bound to devices)' },
  })
  return deviceBindingRoutes(r, deps, s)
}

/** The devices bound to a certificate: list, bind (answers their first page), unbind. */
function deviceBindingRoutes(r: Router, { meta, services }: Deps, s: WireShapes['certs']) {
  const first = { page: 1, limit: 10, filters: [] }
  const device = Form.of(s.CertDevice, s.certWire.device)
  return crud(r, {
    tag,
    path: '/certs/:id/devices',
    list: {
      summary: 'Devices bound to a certificate',
      query: listQuery(s.certDeviceFilters),
      form: device,
      read: (tenant, query, id) => meta.certs.devices(tenant, id, query),
    },
    create: {
      summary: 'Bind devices to a certificate (binding twice is no change)',
      description: 'Answers with the first page of the devices bound to the certificate.',
      body: s.CertDevicesBind,
      write: async (actor, body, id) => {
        await services.certs.bindDevices(actor, id, body.devicesIntID)
        return meta.certs.devices(actor.tenant, id, first)
      },
      form: Form.page(device, first),
    },
    remove: {
      summary: 'Unbind devices (device record ids)',
      write: (actor, ids, id) => services.certs.unbindDevices(actor, id, ids),
    },
  })
}
