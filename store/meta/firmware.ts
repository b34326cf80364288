/** Firmware packages of a tenant's products (src/services/firmware.ts); their bytes are store/firmware-files.ts's. */
import type { FirmwareRecord } from '../fields/firmware.ts'
import type { TableRepository } from './table.ts'

export type { FirmwareRecord } from '../fields/firmware.ts'

/** What a package's row stores; `file` names its bytes under DATA_DIR/firmware. */
export interface FirmwareInput {
  productIntID: number
  version: string
  size: number
  sha256: string
  description: string | null
  file: string
  userIntID: number | null
}

export interface FirmwareRepository extends Omit<TableRepository<FirmwareRecord>, 'update'> {
  /** Stores a package's row with a generated firmwareID; Conflict('version') when the product has that version. */
  create(tenant: string, input: FirmwareInput, now: number): Promise<FirmwareRecord>
  /** The file names of the tenant's packages `ids` (NotFound naming ids not the tenant's). */
  files(tenant: string, ids: number[]): Promise<string[]>
  /** A package by its firmwareID, with its file, when it is a package of the product `productIntID`. */
  forProduct(
    firmwareID: string,
    productIntID: number,
  ): Promise<(FirmwareRecord & { file: string }) | undefined>
  /** The file names of every package (all tenants): the files start-up keeps. */
  allFiles(): Promise<string[]>
}
