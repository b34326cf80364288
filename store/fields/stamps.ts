import { z } from 'zod'
import type { FieldTable } from './table.ts'

/**
 * When a record was created and last edited (`x` is the record's alias): epoch ms, answered as wire times;
 * updateAt is a sort key (createAt is every list's default order).
 */
export const stamps = (x: string) =>
  ({
    createAt: { sql: `${x}.create_at`, time: true, read: z.number().int() },
    updateAt: { sql: `${x}.update_at`, time: true, sort: true, read: z.number().int().nullable() },
  }) as const satisfies FieldTable
