/** What the webhook suites share. */
import * as assert from 'uvu/assert'
import type { ServiceOptions } from '../../../src/service.ts'
import type { Client, TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { ErrorBody, Page, Wire } from '../../_support/wire.ts'
import { devices, until } from '../../ingest/_mqtt.ts'
import type { WebhookCreated, WebhookDelivery } from '../../../src/schemas/webhooks.ts'
import type { NewDevice } from '../routes/devices-helpers.ts'
import { startReceiver, type Receiver } from './_receiver.ts'

/** A refusal's body, with its field errors. */
export type Refusal = ErrorBody & { errors: Record<string, string> }

/** Asserts that a webhook of each of `urls` is refused: 422, errors naming `url` only. */
export async function assertUrlsRefused(c: Client, urls: string[]) {
  for (const url of urls) {
    const r = await c.post<Refusal>('/api/v1/webhooks', { url })
    assert.is(r.status, 422, `${url}: ${r.text}`)
    assert.equal(Object.keys(r.body.errors), ['url'], url)
  }
}

/** What a webhook suite runs against: its service and admin, a receiver, and four devices of one product. */
export interface HookWorld {
  t: TestService
  c: Client
  rx: Receiver
  ds: [NewDevice, NewDevice, NewDevice, NewDevice]
}

/**
 * A suite over a service of its own (with `env` and `opts`), a receiver and four devices; `w` holds them while its
 * tests run.
 */
export function hookSuite(name: string, env: Record<string, string>, opts: ServiceOptions) {
  const w = {} as HookWorld
  const test = serviceSuite(
    name,
    async (t) => {
      Object.assign(w, {
        t,
        c: t.admin,
        rx: await startReceiver(),
        ds: (await devices(t, 4)).devices,
      })
    },
    env,
    opts,
  )
  test.after(async () => w.rx?.close())
  return { test, w }
}

/** Creates a webhook of command.status events to `url`: asserts 201, answers its record (its secret too). */
export async function commandHook(c: Client, url: string) {
  const r = await c.post<Wire<typeof WebhookCreated>>('/api/v1/webhooks', {
    url,
    events: ['command.status'],
  })
  assert.is(r.status, 201, r.text)
  return r.body
}

/** A webhook's deliveries, as its list answers them. */
export const deliveries = async (c: Client, id: number) =>
  (await c.get<Page<Wire<typeof WebhookDelivery>>>(`/api/v1/webhooks/${id}/deliveries`)).body

/** A webhook's newest delivery, once it has been tried once. */
export const firstAttempt = async (c: Client, id: number) =>
  (
    await until(
      () => deliveries(c, id),
      (l) => l.items[0]?.attempts === 1,
    )
  ).items[0]!
