import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import type { AppEnv } from '../http/env.ts'
import { Router } from '../http/router.ts'
import { ApiError } from '../errors.ts'
import { IngestBody, IngestReply, type IngestMessage } from '../schemas/ingest.ts'
import { ingestBytes, ingestMessages, ingestSender, type IngestSender } from './ingest-request.ts'
import type { IngestDevice, IngestRepository } from '../../store/types.ts'
import { Backpressure, type Pipeline, type UplinkOutcome } from '../../ingest/types.ts'
import { uplinkTopic } from '../kernel/topics.ts'

type Rejected = { index: number; errorCode: string; message: string }
type Resolved =
  { ok: true; device: IngestDevice } | { ok: false; errorCode: string; message: string }

/** The device a message is for: the sender itself, a child of the sending gateway, or a device of the caller's tenant. */
async function targetOf(
  sender: IngestSender,
  m: IngestMessage,
  repo: IngestRepository,
): Promise<Resolved> {
  const foreign = (id: string): Resolved => ({
    ok: false,
    errorCode: 'DATA_NOT_FOUND',
    message: `deviceID: no device ${id}`,
  })
  let device: IngestDevice | undefined
  if (sender.kind === 'device') {
    const self = sender.device
    if (m.deviceID === undefined || m.deviceID === self.deviceID) return { ok: true, device: self }
    device = await repo.deviceByDeviceID(m.deviceID)
    // a gateway's credentials may send for its own devices, nobody else's
    if (!device || self.kind !== 'gateway' || device.gatewayIntID !== self.id)
      return foreign(m.deviceID)
  } else {
    if (m.deviceID === undefined)
      return {
        ok: false,
        errorCode: 'FORM_INVALID',
        message: 'deviceID: required with API credentials',
      }
    device = await repo.deviceByDeviceID(m.deviceID)
    if (!device || device.tenantID !== sender.tenantID) return foreign(m.deviceID)
  }
  if (device.blocked)
    return {
      ok: false,
      errorCode: 'PERMISSION_DENIED',
      message: `deviceID: ${device.deviceID} is blocked`,
    }
  return { ok: true, device }
}

/** The payload bytes: a JSON object (or any JSON value) as JSON text, a string as given. */
const payloadBytes = (p: unknown) => Buffer.from(typeof p === 'string' ? p : JSON.stringify(p))

/** Submits every resolved message; per-message rejections; 429 when nothing could be queued for backpressure. */
async function submitAll(
  pipeline: Pipeline,
  c: Context<AppEnv>,
  sender: IngestSender,
  messages: ReturnType<typeof ingestMessages>,
  repo: IngestRepository,
) {
  const rejected: Rejected[] = []
  const receivedAt = Date.now()
  const ip = c.get('clientAddress')
  const targets = await Promise.all(
    messages.map((m) => (m.ok ? targetOf(sender, m.message, repo) : m)),
  )
  const work = targets.map(async (t, index): Promise<UplinkOutcome | undefined> => {
    if (!t.ok) {
      rejected.push({ index, errorCode: t.errorCode, message: 'message' in t ? t.message : '' })
      return undefined
    }
    const m = (messages[index] as { message: IngestMessage }).message
    const topic = uplinkTopic(t.device, m.topic)
    const outcome = await pipeline.submit({
      device: t.device,
      topic,
      payload: payloadBytes(m.payload),
      receivedAt,
      ip,
    })
    if (outcome.rejected.length) {
      const text = outcome.rejected.map((r) =>
        r.deviceID && r.deviceID !== t.device.deviceID ? `${r.deviceID}: ${r.message}` : r.message,
      )
      rejected.push({ index, errorCode: outcome.rejected[0]!.errorCode, message: text.join('; ') })
    }
    return outcome
  })
  const settled = await Promise.allSettled(work)
  let accepted = 0
  let queued = 0
  let busy = 0
  for (const [index, s] of settled.entries()) {
    if (s.status === 'fulfilled') {
      if (s.value) ((accepted += s.value.accepted), queued++)
    } else if (s.reason instanceof Backpressure) {
      busy++
      rejected.push({
        index,
        errorCode: 'TOO_MANY_REQUESTS',
        message: 'the ingest queue is full; retry later',
      })
    } else throw s.reason
  }
  if (busy && !queued) throw tooMany()
  return { accepted, rejected: rejected.sort((a, b) => a.index - b.index) }
}

const tooMany = () =>
  new ApiError('TOO_MANY_REQUESTS', { body: 'the ingest queue is full' }, undefined, {
    'Retry-After': '1',
  })

/** HTTP uplink: device credentials or an API caller; one message, `{messages}`, or NDJSON. */
export function ingestRoutes({ config, meta, pipeline, services }: Deps, shapes: WireShapes) {
  const { PollQuery, PolledCommands } = shapes.commands
  const r = new Router()
  const repo = meta.ingest

  r.route(
    {
      method: 'post',
      path: '/ingest',
      tag: 'Ingest',
      summary: 'Send uplink messages over HTTP',
      description:
        'Authorization: Basic base64(deviceUsername:token) of a device or gateway (a gateway may send for its ' +
        'devices), or an API caller (then every message names a deviceID of the tenant). Body: one message, ' +
        '{"messages": [...]} (at most 10,000), or NDJSON (application/x-ndjson); Content-Encoding gzip accepted. ' +
        '202: `accepted` = data point values stored, `rejected` = messages not fully stored. 429 when the queue is full.',
      response: IngestReply,
      status: 202,
      // device credentials are not API callers: this route authenticates itself (ingestSender)
      public: true,
      errors: [401, 403, 429],
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
      const sender = await ingestSender(c, repo)
      const text = (await ingestBytes(c, config.INGEST_BODY_LIMIT)).toString('utf8')
      const messages = ingestMessages(text, c.req.header('content-type') ?? '')
      if (pipeline.saturated) throw tooMany()
      return c.json(await submitAll(pipeline, c, sender, messages, repo), 202)
    },
  )

  r.route(
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
      const sender = await ingestSender(c, repo)
      if (sender.kind !== 'device')
        throw new ApiError('PERMISSION_DENIED', { authorization: 'device credentials required' })
      return c.json({ items: await services.commands.poll(sender.device, query.wait ?? 0) })
    },
  )

  return r
}
