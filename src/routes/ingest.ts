import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { ApiError } from '../errors.ts'
import { IngestBody, IngestReply } from '../schemas/ingest.ts'
import { ingestBytes, ingestMessages, ingestSender } from './ingest-request.ts'

const tooMany = () =>
  new ApiError('TOO_MANY_REQUESTS', { body: 'the ingest queue is full' }, undefined, {
    'Retry-After': '1',
  })

const storageFull = () =>
  new ApiError('INSUFFICIENT_STORAGE', {
    body: 'the disk is full: nothing new is stored until space is freed; retry later',
  })

/** HTTP uplink: device credentials or an API caller; one message, `{messages}`, or NDJSON. */
export function ingestRoutes({ config, ingest, pipeline, services }: Deps, shapes: WireShapes) {
  const { PollQuery, PolledCommands } = shapes.commands
  const r = new Router()

  r.typed(
    {
      method: 'post',
      path: '/ingest',
      tag: 'Ingest',
      summary: 'Send uplink messages over HTTP',
      description:
        'Authorization: Basic base64(deviceUsername:token) of a device or gateway (a gateway may send for its ' +
        'devices), or an API caller (then every message names a deviceID of the tenant). Body: one message, ' +
        '{"messages": [...]} (at most 10,000), or NDJSON (application/x-ndjson); Content-Encoding gzip accepted. ' +
        '202: `accepted` = data point values stored, `rejected` = messages not fully stored. 429 when the queue is full, ' +
        '507 while the disk is full.',
      response: IngestReply,
      status: 202,
      // device credentials are not API callers: this route authenticates itself (ingestSender)
      public: true,
      errors: [401, 403, 429, 507],
      rawBody: {
        contentType: 'application/json',
        description:
          'one message {deviceID?, topic, payload} or {"messages": [...]}; a message failing its checks is ' +
          "listed in the 202 answer's `rejected`, not refused. Any content type but NDJSON is read as JSON",
        schema: IngestBody,
        alternatives: {
          'application/x-ndjson':
            'one message per line (also application/jsonl, application/json-seq)',
        },
      },
    },
    async (c) => {
      const sender = await ingestSender(c, ingest)
      const text = (await ingestBytes(c, config.INGEST_BODY_LIMIT)).toString('utf8')
      const messages = ingestMessages(text, c.req.header('content-type') ?? '')
      if (pipeline.storageFull) throw storageFull()
      if (pipeline.saturated) throw tooMany()
      const { accepted, rejected, busy, full } = await ingest.submit(
        sender,
        messages,
        c.get('clientAddress'),
      )
      if (full) throw storageFull()
      if (busy) throw tooMany()
      return c.json({ accepted, rejected }, 202)
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/ingest/commands',
      tag: 'Ingest',
      summary: 'A device fetches its queued commands (long poll with ?wait=0..30 s)',
      description:
        'Authorization: Basic base64(deviceUsername:token) of the device. Answers the commands queued for it, ' +
        'oldest first, and marks them delivered; with `wait` it waits for one to arrive when none is queued. ' +
        'Answer a command through POST /ingest with {"data_type":"response","result":{"task_id":…,"code":200}}.',
      query: PollQuery,
      response: PolledCommands,
      public: true,
      errors: [401, 403],
    },
    async (c, { query }) => {
      const sender = await ingestSender(c, ingest)
      if (sender.kind !== 'device')
        throw new ApiError('PERMISSION_DENIED', { authorization: 'device credentials required' })
      return c.json({ items: await services.commands.poll(sender.device, query.wait ?? 0) })
    },
  )

  return r
}
