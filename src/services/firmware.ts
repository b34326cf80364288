/**
 * Firmware packages (README "Firmware"): a product's package of a version, its bytes streamed to a file of
 * DATA_DIR/firmware with its SHA-256 and size (store/firmware-files.ts), its row written once the file is whole and
 * in place (a half upload is never listed), deleted with its file. Devices download their own product's packages.
 */
import type { Readable } from 'node:stream'
import { Conflict, Invalid, NotFound, Referenced } from '../kernel/errors.ts'
import { issuesToErrors } from '../kernel/errors.ts'
import { randomId } from '../kernel/secrets.ts'
import type { FirmwareFiles, ReceivedFile } from '../../store/firmware-files.ts'
import type { MetaStore } from '../../store/types.ts'
import type { DeviceIdentity } from './ports.ts'
import type { Actor } from './types.ts'
import { FirmwareFields } from '../schemas/firmware.ts'

export interface FirmwareDeps {
  meta: MetaStore
  files: FirmwareFiles
  now: () => number
}

/** Checks an upload's fields and file; the package's row and kept file, or Invalid / NotFound / Conflict. */
async function store(
  { meta, files, now }: FirmwareDeps,
  a: Actor,
  fields: Record<string, string>,
  file: ReceivedFile | undefined,
) {
  const parsed = FirmwareFields.safeParse(fields)
  const errors = parsed.success ? {} : issuesToErrors(parsed.error.issues)
  if (!file) errors.file = 'required: the package, as the multipart part `file`'
  if (!parsed.success || !file) throw new Invalid(errors)
  const f = parsed.data
  if (f.sha256 !== undefined && f.sha256.toLowerCase() !== file.sha256)
    throw new Invalid('sha256', `does not match the file's SHA-256 (${file.sha256})`)
  const product = await meta.products.byProductID(a.tenant, f.productID, 'productID')
  const kept = await files.keep(file, `${product.id}-${randomId(16)}`)
  try {
    return await meta.firmware.create(
      a.tenant,
      {
        productIntID: product.id,
        version: f.version,
        size: file.size,
        sha256: file.sha256,
        description: f.description ?? null,
        file: kept,
        userIntID: a.userIntID,
      },
      now(),
    )
  } catch (e) {
    await files.remove([kept])
    throw e
  }
}

/** An unknown product (NotFound) or a version the product has (Conflict), named by an upload's first fields. */
async function precheck(meta: MetaStore, a: Actor, fields: Record<string, string>) {
  const f = FirmwareFields.partial().safeParse(fields)
  if (!f.success || !f.data.productID || !f.data.version) return
  const product = await meta.products.byProductID(a.tenant, f.data.productID, 'productID')
  const taken = await meta.firmware.list(a.tenant, {
    page: 1,
    limit: 1,
    filters: [
      { field: 'version', op: 'eq' as const, value: f.data.version },
      { field: 'productIntID', op: 'eq' as const, value: String(product.id) },
    ],
  })
  if (taken.items.length)
    throw new Conflict('version', 'the product has a package of this version already')
}

export function firmwareService(deps: FirmwareDeps) {
  const { meta, files, now } = deps
  return {
    /** Streams an upload's file part into a temporary file (at most `maxBytes`), with its size and SHA-256. */
    receive: (stream: Readable, maxBytes: number) => files.receive(stream, maxBytes),

    /**
     * Checks the fields an upload sent before its file (when they came first): an unknown product (NotFound) or a
     * version the product has (Conflict) is refused before the bytes arrive, not after.
     */
    precheck: (a: Actor, fields: Record<string, string>) => precheck(meta, a, fields),
    /** Removes a received file that will not be kept (an upload refused). */
    discard: (file: ReceivedFile) => files.discard(file),

    /**
     * A package uploaded: `file` received already (its temporary file is kept or removed here, whatever the outcome).
     */
    async upload(a: Actor, fields: Record<string, string>, file: ReceivedFile | undefined) {
      try {
        return await store(deps, a, fields, file)
      } finally {
        if (file) await files.discard(file)
      }
    },

    /** Deletes the tenant's packages `ids` (all or none) and then their files; not while an open rollout uses one. */
    async remove(a: Actor, ids: number[]) {
      if (await meta.rollouts.usesFirmware(a.tenant, ids))
        throw new Referenced('ids', 'a running or paused rollout uses the package: cancel it first')
      const names = await meta.firmware.files(a.tenant, ids)
      await meta.firmware.delete(a.tenant, ids)
      await files.remove(names)
    },

    /** A package a device may download: of its own product; NotFound otherwise. */
    async forDevice(device: DeviceIdentity, firmwareID: string) {
      const found = await meta.firmware.forProduct(firmwareID, device.productIntID)
      if (!found || (await files.size(found.file)) !== found.size)
        throw new NotFound('firmwareID', 'no such firmware for this device')
      return found
    },

    /** Removes what a crash left in DATA_DIR/firmware (temporary files, files without a row); the names. */
    async sweep() {
      return files.sweep(await meta.firmware.allFiles(), now())
    },

    /** The path of a package's file (for a send straight from the file). */
    path: (file: string) => files.path(file),
    /** The bytes `start` to `end` (inclusive) of a package's file, streamed. */
    read: (file: string, start: number, end: number) => files.read(file, start, end),
    /** The bytes `start` to `end` (inclusive) of a package's file, read whole (an MQTT chunk). */
    readBytes: (file: string, start: number, end: number) => files.readBytes(file, start, end),
  }
}

export type FirmwareService = ReturnType<typeof firmwareService>
