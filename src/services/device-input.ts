import { Invalid, NotFound, type FieldErrors } from '../kernel/errors.ts'
import { randomCredential } from '../kernel/secrets.ts'
import {
  credentialRules,
  deviceDraft,
  deviceRules,
  gatewayDraft,
  keepApplicableLinks,
  type Draft,
} from '../rules/devices.ts'
import type { DeviceUpdate } from '../schemas/devices.ts'
import type { GatewayUpdate } from '../schemas/gateways.ts'
import type {
  CredentialFields,
  CurrentDevice,
  CurrentGateway,
  DeviceFields,
  DeviceRepository,
  GatewayFields,
  ProductRef,
} from '../../store/types.ts'

const fail = (kind: typeof NotFound | typeof Invalid, errors: FieldErrors) => {
  if (Object.keys(errors).length) throw new kind(errors)
}

/** The credentials a write lacks, generated (36 characters each). */
function withCredentials<T extends CredentialFields>(
  d: Draft<T>,
): Omit<T, keyof CredentialFields> & CredentialFields {
  return {
    ...d,
    deviceID: d.deviceID ?? randomCredential(),
    deviceUsername: d.deviceUsername ?? randomCredential(),
    token: d.token ?? randomCredential(),
  }
}

/** The tenant's product named by productID (the body's, else the stored one's); 404 errors.productID. */
async function productOf(
  repo: DeviceRepository,
  tenant: string,
  productID: string | undefined,
): Promise<ProductRef> {
  const product = productID === undefined ? undefined : await repo.product(tenant, productID)
  if (!product) throw new NotFound({ productID: `no product ${productID ?? ''}`.trim() })
  return product
}

/**
 * A device create or edit body (+ the stored device on edit) → the fields to store. Unknown ids in the body are
 * 404 (errors.productID, errors.gateway, errors.parentDevice), then every field rule is checked at once (422),
 * then the omitted credentials are generated.
 */
export async function prepareDevice(
  repo: DeviceRepository,
  tenant: string,
  body: DeviceUpdate,
  current?: CurrentDevice,
): Promise<DeviceFields> {
  const product = await productOf(repo, tenant, body.productID ?? current?.productID)
  const draft = keepApplicableLinks(deviceDraft(body, current, product.id), product.cloudProtocol)
  const notFound: FieldErrors = {}
  if (draft.gateway !== null && !(await repo.gatewayExists(tenant, draft.gateway)))
    notFound.gateway = 'no such gateway'
  const ancestry =
    draft.parentDevice === null ? [] : await repo.ancestry(tenant, draft.parentDevice)
  if (draft.parentDevice !== null && ancestry.length === 0) notFound.parentDevice = 'no such device'
  fail(NotFound, notFound)
  const ctx = {
    protocol: product.cloudProtocol,
    givenProtocol: body.cloudProtocol,
    selfId: current?.id,
    ancestry,
  }
  fail(Invalid, { ...deviceRules(draft, ctx), ...credentialRules(current, body) })
  return withCredentials<DeviceFields>(draft)
}

/** A gateway create or edit body → the fields to store (404 errors.productID, 422 on a changed credential). */
export async function prepareGateway(
  repo: DeviceRepository,
  tenant: string,
  body: GatewayUpdate,
  current?: CurrentGateway,
): Promise<GatewayFields> {
  const product = await productOf(repo, tenant, body.productID ?? current?.productID)
  fail(Invalid, credentialRules(current, body))
  return withCredentials<GatewayFields>(gatewayDraft(body, current, product.id))
}
