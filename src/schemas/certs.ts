import { z } from 'zod'
import { enumCode, intID, name, annotate, responseSchema } from './common.ts'
import { NOT_BLANK, NullableStr, Str, Int } from './common.ts'
import { CERT_DETAIL_TABLE, CERT_DEVICE_TABLE, CERT_TABLE } from '../../store/fields/access.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'
import { enumDoc } from '../enums.ts'

/** Certificate detail. The key-like texts are the real PEM texts of the tenant. */
export const Cert = responseSchema(
  CERT_DETAIL_TABLE,
  'id name enable enableLabel CN cert key root createUser createAt updateAt',
  {
    enable: Int.meta(enumDoc('certEnable')),
    cert: Str.meta({ description: 'client certificate, PEM' }),
    key: NullableStr.meta({
      description: 'private key of the client certificate, PKCS#8 PEM; null for viewers',
    }),
    root: Str.meta({ description: "the tenant's CA certificate, PEM" }),
  },
)

/** Certificate in a list. */
export const CertListItem = Cert.pick({
  id: true,
  name: true,
  enable: true,
  enableLabel: true,
  createAt: true,
})

/** X.509's ub-common-name is 64; control characters have no place in a name matched at the TLS handshake. */
const commonName = z
  .string({ error: 'must be a string' })
  .regex(NOT_BLANK, { error: 'must not be empty' })
  .trim()
  .max(64, { error: 'at most 64 characters' })
  // the C0 and C1 controls (Unicode category Cc), as a range every regex dialect reads
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, { error: 'must not contain control characters' })

export const CertCreate = requestSchema(CERT_TABLE, {
  name: name(50),
  enable: enumCode('certEnable'),
}).extend({
  /** The client certificate's common name; a random 16-character id when absent or null; blank is refused. */
  CN: commonName.nullish(),
})
annotate(CertCreate, {
  examples: [{ name: 'thermometer-1 certificate', enable: 1, CN: 'thermometer-1' }],
})

/** An edit may send back the whole record as read: CN, cert, key and root must then be unchanged. */
export const CertUpdate = requestSchema(CERT_TABLE, {
  name: name(50).optional(),
  enable: enumCode('certEnable').optional(),
}).extend({
  CN: z.unknown().optional(),
  cert: z.unknown().optional(),
  key: z.unknown().optional(),
  root: z.unknown().optional(),
})

/** List filters: name, enable (store/fields/access.ts). */
export const certFilters = filterFields(CERT_TABLE)

/** A device bound to a certificate. */
export const CertDevice = responseSchema(CERT_DEVICE_TABLE, 'id deviceID deviceName')

export const certDeviceFilters = filterFields(CERT_DEVICE_TABLE)

export const CertDevicesBind = z.object({
  devicesIntID: z
    .array(intID, { error: 'must be an array of device ids' })
    .min(1, { error: 'at least one device id' })
    .max(1000, { error: 'at most 1000 device ids' }),
})
annotate(CertDevicesBind, { examples: [{ devicesIntID: [1] }] })

export type CertCreate = z.infer<typeof CertCreate>
export type CertUpdate = z.infer<typeof CertUpdate>
