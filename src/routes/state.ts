import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import type { AppEnv } from '../http/env.ts'
import { actorOf } from '../http/env.ts'
import { Router } from '../http/router.ts'
import { ApiError } from '../errors.ts'
import { formatTime } from '../kernel/time.ts'
import {
  DesiredPatch,
  ReportBody,
  ScopePatch,
  StateDocument,
  StateTask,
  StateWaitQuery,
} from '../schemas/state.ts'
import type { StateDocument as Doc } from '../services/state.ts'
import type { HttpIngest } from '../../ingest/types.ts'
import { ingestSender } from './ingest-request.ts'

const tag = 'Device state'

/** The document as the API answers it: times in the service's time zone. */
function stateWire(doc: Doc, tz: string) {
  const times = (m: Record<string, { updatedAt: number }>) =>
    Object.fromEntries(
      Object.entries(m).map(([k, v]) => [k, { updatedAt: formatTime(v.updatedAt, tz) }]),
    )
  return {
    deviceID: doc.deviceID,
    desired: doc.desired,
    reported: doc.reported,
    delta: doc.delta,
    version: doc.version,
    desiredVersion: doc.desiredVersion,
    reportedVersion: doc.reportedVersion,
    desiredAt: formatTime(doc.desiredAt, tz),
    reportedAt: formatTime(doc.reportedAt, tz),
    metadata: { desired: times(doc.metadata.desired), reported: times(doc.metadata.reported) },
  }
}

/** The device whose credentials came with the request (403 for an API caller: these routes are a device's own). */
async function deviceOf(c: Context<AppEnv>, ingest: HttpIngest) {
  const sender = await ingestSender(c, ingest)
  if (sender.kind !== 'device')
    throw new ApiError('PERMISSION_DENIED', { authorization: 'device credentials required' })
  return sender.device
}

type State = Deps['services']['state']

/** A device's document, read and patched through the API, and the patches of a group's or product's devices. */
function apiRoutes(r: Router, state: State) {
  r.typed(
    {
      method: 'get',
      path: '/devices/:id/state',
      tag,
      summary: "A device's state document: desired, reported and their delta",
      response: StateDocument,
    },
    async (c, { id }) => c.json(stateWire(await state.get(actorOf(c), id), c.get('tz'))),
  )

  r.typed(
    {
      method: 'patch',
      path: '/devices/:id/state',
      tag,
      summary: "Change a device's desired state (a JSON merge patch)",
      description:
        'Answers the whole document. With `version` (the desiredVersion the patch was based on), a document changed ' +
        'meanwhile answers 409 VERSION_CONFLICT and nothing changes. A side over the size limit: 413. The device ' +
        'receives the new delta on `state/delta` at once when connected, or within a second of subscribing again.',
      body: DesiredPatch,
      response: StateDocument,
      errors: [409, 413],
    },
    async (c, { id, body }) =>
      c.json(stateWire(await state.patchDesired(actorOf(c), id, body), c.get('tz'))),
  )

  for (const scope of ['group', 'product'] as const)
    r.typed(
      {
        method: 'patch',
        path: `/${scope}s/:id/state`,
        tag,
        summary: `Change the desired state of every device of a ${scope} (a task)`,
        description:
          `The same merge patch for each device of the ${scope} (its devices when the task reaches them), a page ` +
          'at a time; the task (`statusUrl`) reports {total, changed, unchanged, failed}. Accepted patches survive ' +
          'a restart: another node, or this one once restarted, goes on from the last page done.',
        body: ScopePatch,
        response: StateTask,
        status: 202,
      },
      async (c, { id, body }) =>
        c.json(await state.patchScope(actorOf(c), scope, id, body.desired), 202),
    )
}

/** An HTTP device's own side: the long poll of its document and its reports (device credentials). */
function deviceRoutes(r: Router, state: State, ingest: HttpIngest) {
  r.typed(
    {
      method: 'get',
      path: '/ingest/state',
      tag,
      summary:
        'An HTTP device reads its state document (long poll with ?wait=0..30 s&after=<desiredVersion>)',
      description:
        'Authorization: Basic base64(deviceUsername:token) of the device. Answers at once when desiredVersion is ' +
        'above `after`, else when it becomes so or `wait` runs out (then the document as it is).',
      query: StateWaitQuery,
      response: StateDocument,
      public: true,
      errors: [401, 403],
    },
    async (c, { query }) => {
      const device = await deviceOf(c, ingest)
      const doc = await state.waitDesired(device, query.after ?? 0, query.wait ?? 0)
      return c.json(stateWire(doc, c.get('tz')))
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/ingest/state',
      tag,
      summary: 'An HTTP device reports its state (a merge patch of reported)',
      description:
        'Authorization: Basic base64(deviceUsername:token) of the device. Answers the whole document once the ' +
        'report is stored.',
      body: ReportBody,
      response: StateDocument,
      public: true,
      errors: [401, 403, 413],
    },
    async (c, { body }) => {
      const device = await deviceOf(c, ingest)
      return c.json(stateWire(await state.report(device, body.reported), c.get('tz')))
    },
  )
}

/** Devices' state documents: read and patch them, patch a group's or a product's, and an HTTP device's side. */
export function stateRoutes({ services, ingest }: Deps) {
  const r = new Router()
  apiRoutes(r, services.state)
  deviceRoutes(r, services.state, ingest)
  return r
}
