import type { ListArgs, Page } from '../list.ts'

/**
 * What every repository of one tenant-scoped table answers (store/libsql/table-repository.ts): a record of
 * another tenant is not found, like a missing one. `R` is the list's record, `D` the detail record `get` and
 * `update` answer, `P` what an update writes. A resource's port extends it with its create and its own queries.
 */
export interface TableRepository<R, D = R, P = Partial<D>> {
  /** A page of the tenant's records; a filter naming another tenant's key matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page<R>>
  /** One record of the tenant; NotFound when missing or foreign. */
  get(tenant: string, id: number): Promise<D>
  /** Writes the fields of `patch` (absent ones keep their values); NotFound as `get`, Conflict on a taken value. */
  update(tenant: string, id: number, patch: P): Promise<D>
  /**
   * Deletes all of `ids` or none: NotFound('ids') when one is not the tenant's, Referenced('ids') while one is
   * still used by other records.
   */
  delete(tenant: string, ids: number[]): Promise<void>
}
