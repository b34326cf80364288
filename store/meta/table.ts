import type { JsonText, ListArgs, Page, TextPage } from '../list.ts'
import type { Projection, ProjectionCtx } from '../../src/kernel/projection.ts'

/** The wire form a read answers as text (`ProjectedReads`): its projection and the caller's context. */
export interface Shape {
  projection: Projection
  ctx: ProjectionCtx
}

/**
 * A repository's reads answered as JSON text in a wire form (`shape`): the thread that ran the SQL projects the
 * records and serializes them (store/libsql/projected.ts), so a list page or a detail costs the HTTP thread no
 * parse, shaping or serialization of its records. The text is what the form's serializer would write.
 */
export interface ProjectedReads<Opts = never> {
  /** `list` (with its `opts`), the items as the JSON array of their wire forms. */
  listText(tenant: string, q: ListArgs, shape: Shape, opts?: Opts): Promise<TextPage>
  /** `get`, as the JSON object of its wire form; NotFound as `get`. */
  getText(tenant: string, id: number, shape: Shape): Promise<JsonText>
}

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
