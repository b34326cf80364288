import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { Forbidden, TooMany } from '../kernel/errors.ts'
import { importRecords } from '../services/device-import.ts'
import { DeviceImportForm } from '../schemas/device-transfer.ts'
import { actorOf, mayReadSecrets } from '../http/env.ts'

const tag = 'Devices'

/** devices_export and devices_import: asynchronous tasks answering 202 {statusUrl, taskID}. */
export function deviceTransferRoutes(deps: Deps, shapes: WireShapes) {
  const { meta, services, tasks, config } = deps
  const { deviceFilters, deviceListExtra } = shapes.devices
  const { TaskAccepted } = shapes.deviceTransfer
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/devices_export',
      tag,
      summary: 'Export devices as CSV (a task; the file is at /devices_export/{taskID} when done)',
      query: listQuery(deviceFilters, { extra: deviceListExtra }),
      response: TaskAccepted,
      status: 202,
      errors: [429],
    },
    async (c, { query }) => {
      const actor = actorOf(c)
      const groupID = query.raw.groupID as string | undefined
      if (
        (await meta.tasks.countActive(actor.tenant, 'devices_export')) >= config.EXPORT_CONCURRENCY
      )
        throw new TooMany(
          { task: `at most ${config.EXPORT_CONCURRENCY} exports run at once; try again shortly` },
          5,
        )
      const opts = { secrets: mayReadSecrets(c.get('caller')), keep: config.EXPORT_FILES_KEPT }
      const { taskID, statusUrl } = await tasks.start(
        actor.tenant,
        actor.userIntID,
        'devices_export',
        (report) => services.devices.export(actor, taskID, { ...query, groupID }, report, opts),
      )
      return c.json({ statusUrl, taskID }, 202)
    },
  )

  // answers the CSV file itself: it declares no JSON response to check
  r.typed(
    {
      method: 'get',
      path: '/devices_export/:taskID',
      tag,
      summary: 'Download the CSV of a finished export',
      produces: { 'text/csv': 'the devices, a header row of the create fields (UTF-8)' },
    },
    async (c, { params }) => {
      const file = await meta.tasks.getFile(c.get('tenant'), params.taskID ?? '')
      if (file.secrets && !mayReadSecrets(c.get('caller')))
        throw new Forbidden({
          taskID: 'this export holds device tokens, which viewers may not read',
        })
      return c.body(file.content, 200, {
        'content-type': file.contentType,
        'content-disposition': `attachment; filename="${file.name}"`,
      })
    },
  )

  importRoute(r, deps, TaskAccepted)
  return r
}

/** `POST /devices_import`: a task that creates the devices of a CSV file. */
function importRoute(
  r: Router,
  { services, tasks, config }: Deps,
  TaskAccepted: WireShapes['deviceTransfer']['TaskAccepted'],
) {
  r.typed(
    {
      method: 'post',
      path: '/devices_import',
      tag,
      summary: 'Import devices from a CSV file (multipart field `file`, the devices_export shape)',
      rawBody: {
        contentType: 'multipart/form-data',
        description: '`file`: UTF-8 CSV with a header row of device field names',
        schema: DeviceImportForm,
        alternatives: { 'text/csv': 'the CSV file itself as the body' },
      },
      response: TaskAccepted,
      status: 202,
      description: `At most ${config.IMPORT_BODY_LIMIT} bytes. The task result is {success, failed, errors: [{row, field, message}]}; row 1 is the header.`,
    },
    async (c) => {
      const records = importRecords(await uploadedText(c.req.raw))
      const actor = actorOf(c)
      const { statusUrl, taskID } = await tasks.start(
        actor.tenant,
        actor.userIntID,
        'devices_import',
        (report) => services.devices.import(actor, records, report),
      )
      return c.json({ statusUrl, taskID }, 202)
    },
  )
}

/** The text of the multipart `file` field (or of a text/csv body). */
async function uploadedText(req: Request): Promise<string> {
  const type = req.headers.get('content-type') ?? ''
  if (type.startsWith('text/csv')) return req.text()
  if (!type.startsWith('multipart/form-data'))
    throw new ApiError('BAD_REQUEST', { file: 'send multipart/form-data with a `file` field' })
  let form: FormData
  try {
    form = await req.formData()
  } catch {
    throw new ApiError('BAD_REQUEST', { file: 'malformed multipart body' })
  }
  const file = form.get('file')
  if (file === null) throw new ApiError('FORM_INVALID', { file: 'required' })
  return typeof file === 'string' ? file : file.text()
}
