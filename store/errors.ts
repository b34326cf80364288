/** Errors the stores throw; src/app.ts translates them into the API's error body in one place. */
export class StoreError extends Error {}

/** No record with that id in the caller's tenant (field names the input that pointed at it). */
export class NotFound extends StoreError {
  constructor(
    readonly field = 'id',
    message = 'not found',
  ) {
    super(message)
  }
}

/** A unique value is taken. */
export class Conflict extends StoreError {
  constructor(
    readonly field: string,
    message = 'already exists',
  ) {
    super(message)
  }
}

/** A delete was refused because the record is still used. */
export class Referenced extends StoreError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** The backing store cannot answer now (down, timed out). */
export class Unavailable extends StoreError {}

/** The input breaks a rule only the store can check (e.g. a change not allowed while records depend on it). */
export class Invalid extends StoreError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** The change would leave a tenant without an admin (demoting or deleting its last one). */
export class LastAdmin extends StoreError {
  constructor(
    readonly field: string,
    message = 'a tenant keeps at least one admin',
  ) {
    super(message)
  }
}
