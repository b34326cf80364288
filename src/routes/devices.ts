import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { JsonText, ListArgs, Page as Found, Shape, TextPage } from '../../store/types.ts'
import { Router } from '../http/router.ts'
import { listQuery, type FilterFields, type ListQueryArgs } from '../http/paging.ts'
import { mayReadSecrets } from '../http/env.ts'
import { crud, Form, type WireForm } from '../http/crud.ts'
import { DeviceConnection } from '../schemas/onboarding.ts'
import { onboardingService } from '../services/onboarding.ts'
import type { Actor } from '../services/types.ts'
import type { RecordSerializer } from '../wire/shape.ts'

const tag = 'Devices'

type Kind = 'device' | 'gateway'

/**
 * How a variant's device routes reach the stores and services: `R` is the record a read answers, `C` and `U`
 * the create and edit bodies as the variant's schemas validated them.
 */
export interface DeviceAccess<R, C, U> {
  list(tenant: string, query: ListArgs, opts: { groupID?: string }): Promise<Found<R>>
  get(tenant: string, id: number): Promise<R>
  /** `list` and `get` answered as text in a form's projection, where the records are the stored ones. */
  text?: {
    list(
      tenant: string,
      query: ListArgs,
      shape: Shape,
      opts: { groupID?: string },
    ): Promise<TextPage>
    get(tenant: string, id: number, shape: Shape): Promise<JsonText>
  }
  create(a: Actor, body: C): Promise<R>
  update(a: Actor, id: number, body: U): Promise<R>
  remove(a: Actor, ids: number[]): Promise<void>
}

/**
 * The devices of one variant: its forms (detail `D`, list item `L`, write answer `W`), bodies and filters, the
 * serializers of its records `R`, the records `/devices/{id}` addresses, and its access. Each variant's handlers
 * are checked against its own forms (src/routes/variants.ts mounts them).
 */
export interface DeviceVariant<
  R,
  D extends WireForm,
  L extends WireForm,
  W extends WireForm,
  C,
  U,
> {
  Device: D
  DeviceListItem: L
  DeviceWrite: W
  DeviceCreate: z.ZodType<C>
  DeviceUpdate: z.ZodType<U>
  deviceFilters: FilterFields
  deviceListExtra: { groupID: z.ZodOptional<z.ZodString> }
  deviceKinds: readonly Kind[]
  deviceWire: RecordSerializer<R, { detail: D; list: L; write: W }>
  access: DeviceAccess<R, C, U>
}

export function deviceRoutes<R, D extends WireForm, L extends WireForm, W extends WireForm, C, U>(
  deps: Deps,
  v: DeviceVariant<R, D, L, W, C, U>,
) {
  const { access: devices, deviceWire } = v
  const { text } = devices
  const r = new Router()
  const path = '/devices'
  // The connection route sits between detail and create (the OpenAPI document lists them in that order).
  crud(r, {
    tag,
    path,
    list: {
      summary:
        'List devices (?parentDevice= children of a device, ?gateway= devices under a gateway, ?groupID=)',
      query: listQuery(v.deviceFilters, { extra: v.deviceListExtra, sorts: ['lastSeenAt'] }),
      form: Form.of(v.DeviceListItem, deviceWire.list),
      read: (tenant, query) =>
        devices.list(tenant, query, { groupID: query.raw.groupID as string | undefined }),
      ...(text && {
        readText: (tenant: string, query: ListQueryArgs, shape: Shape) =>
          text.list(tenant, query, shape, { groupID: query.raw.groupID as string | undefined }),
      }),
    },
    detail: {
      summary: 'Device detail',
      form: Form.of(v.Device, deviceWire.detail),
      read: (tenant, id) => devices.get(tenant, id),
      ...(text && { readText: (tenant, id, shape) => text.get(tenant, id, shape) }),
    },
  })

  connectionRoute(r, deps, v.deviceKinds, {
    path: '/devices/:id/connection',
    tag,
    summary:
      'How the device connects: broker URLs, credentials, topics, example mosquitto commands',
    description:
      'The token is shown to the admin and user roles only (viewers read null). Topics are full; the ' +
      'embedded broker also takes them relative to topicPrefix.',
  })

  const written = Form.of(v.DeviceWrite, deviceWire.write)
  return crud(r, {
    tag,
    path,
    service: devices,
    create: { summary: 'Create a device', body: v.DeviceCreate, form: written },
    update: { summary: 'Edit a device', body: v.DeviceUpdate, form: written },
    remove: {
      summary:
        'Delete devices with everything keyed by them (refused while they have child devices)',
      description:
        'Removes their stored values and latest values, events, connection and control logs, alerts, ' +
        'subscriptions, group memberships and policy and certificate bindings. A device created again with ' +
        'the same deviceID starts empty.',
    },
  })
}

/** `GET …/:id/connection` of a device or gateway: how it connects (onboarding), its token for writers only. */
export function connectionRoute(
  r: Router,
  { meta, endpoints }: Pick<Deps, 'meta' | 'endpoints'>,
  kinds: readonly Kind[],
  def: { path: string; tag: string; summary: string; description: string },
) {
  const onboarding = onboardingService({ meta, endpoints })
  r.typed({ ...def, method: 'get', response: DeviceConnection }, async (c, { id }) =>
    c.json(
      await onboarding.connection(c.get('tenant'), id, kinds, mayReadSecrets(c.get('caller'))),
    ),
  )
}
