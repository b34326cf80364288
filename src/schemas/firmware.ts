/** Firmware packages (README "Firmware"): the record, the upload's form fields and the device's download. */
import { z } from 'zod'
import { annotate, responseSchema, Int, Str } from './common.ts'
import { FIRMWARE_TABLE } from '../../store/fields/firmware.ts'
import { filterFields } from '../../store/fields/table.ts'

/** A firmware package. */
export const Firmware = responseSchema(
  FIRMWARE_TABLE,
  'id firmwareID productID productIntID productName version size sha256 description createUser createAt updateAt',
  {
    firmwareID: Str.meta({
      description: 'generated string identifier of the package (devices download by it)',
    }),
    size: Int.meta({ description: 'bytes' }),
    sha256: Str.meta({
      description: 'SHA-256 of the bytes, lower-case hex (also the download ETag)',
    }),
  },
)
annotate(Firmware, {
  examples: [
    {
      id: 3,
      firmwareID: 'fW3kq9Zp',
      productID: 'pT8kZ3',
      productIntID: 1,
      productName: 'Thermostat',
      version: '1.4.2',
      size: 1048576,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      description: 'fixes the schedule drift',
      createUser: 'admin',
      createAt: '2026-11-28 09:00:00',
      updateAt: null,
    },
  ],
})

/** The form fields of an upload, beside its file (the service checks them: src/services/firmware.ts). */
export const FirmwareFields = z.object({
  productID: z
    .string({ error: 'required, a string' })
    .min(1, { error: 'required' })
    .max(64, { error: 'at most 64 characters' })
    .meta({ description: "the product's productID" }),
  version: z
    .string({ error: 'required, a string' })
    .min(1, { error: 'required' })
    .max(64, { error: 'at most 64 characters' })
    .regex(/^[\x21-\x7e]+$/, { error: 'printable characters without spaces' })
    .meta({
      description: 'unique per product; printable ASCII without spaces, at most 64 characters',
    }),
  description: z.string().max(300, { error: 'at most 300 characters' }).optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, { error: '64 hex characters' })
    .optional()
    .meta({ description: 'when given, the upload is refused (422) unless the bytes match it' }),
})

/** The multipart form of an upload, as documented: its fields and the file part (the handler reads it streaming). */
export const FirmwareUpload = FirmwareFields.extend({
  file: z.string().meta({ format: 'binary', description: 'the package bytes' }),
})

/** List filters: firmwareID, productID, productIntID, version. */
export const firmwareFilters = filterFields(FIRMWARE_TABLE)
