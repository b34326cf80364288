import type { InValue } from '@libsql/client'
import type { Filter } from '../list.ts'

/**
 * The count of a devices or gateways list from `device_counts` (migration 240, kept by triggers), so a total never
 * walks the tenant's rows: for no filter, `productID`, and one of `deviceStatus` 1 (online) or `blocked` 1.
 * `baseArgs` are the list's `[tenant, ...kinds]`. Undefined for any other filter: the list counts its rows then.
 */
export function countedDevices(
  baseArgs: readonly InValue[],
  filters: readonly Filter[],
): { sql: string; args: InValue[] } | undefined {
  const [tenant, ...kinds] = baseArgs
  let sum = 'n'
  let product: InValue | undefined
  for (const f of filters) {
    if (f.op !== 'eq') return undefined
    if (f.field === 'productID' && product === undefined) product = f.value as InValue
    else if (f.field === 'deviceStatus' && sum === 'n' && Number(f.value) === 1) sum = 'online'
    else if (f.field === 'blocked' && sum === 'n' && Number(f.value) === 1) sum = 'blocked'
    else return undefined
  }
  const kindsIn = kinds.map(() => '?').join(', ')
  const byProduct =
    product === undefined
      ? ''
      : ' AND product_int_id = (SELECT id FROM products WHERE tenant_id = ? AND product_id = ?)'
  return {
    sql: `SELECT coalesce(sum(${sum}), 0) AS n FROM device_counts WHERE tenant_id = ? AND kind IN (${kindsIn})${byProduct}`,
    args: [tenant!, ...kinds, ...(product === undefined ? [] : [tenant!, product])],
  }
}
