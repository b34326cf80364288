import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'

const tag = 'App templates'

/** App templates and the device console (the templates of a device's product). */
export function appTemplateRoutes({ meta, services }: Deps, { appTemplates: s }: WireShapes) {
  const detail = Form.of(s.AppTemplate, s.appTemplateWire.detail)
  const r = crud(new Router(), {
    tag,
    path: '/app_templates',
    store: meta.appTemplates,
    service: services.appTemplates,
    list: { summary: 'List app templates', query: listQuery(s.appTemplateFilters), form: detail },
    detail: { summary: 'App template detail', form: detail },
    create: { summary: 'Create an app template', body: s.AppTemplateCreate, form: detail },
    update: { summary: 'Edit an app template', body: s.AppTemplateUpdate, form: detail },
    remove: { summary: 'Delete app templates' },
  })
  const consoleForm = Form.of(s.ConsoleTemplate, s.appTemplateWire.console)
  return crud(r, {
    tag,
    path: '/device_consoles/:id',
    list: {
      summary: "The app templates of a device's product, with the current value",
      query: listQuery(s.appTemplateFilters),
      form: consoleForm,
      read: (tenant, query, id) => meta.appTemplates.ofDevice(tenant, id, query),
    },
  })
}
