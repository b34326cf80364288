/** What the step tests of src/services share. */

/** The domain error a step throws, as its class name and field errors (undefined when it does not throw). */
export const thrown = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return { name: (e as Error).constructor.name, errors: (e as { errors: unknown }).errors }
  }
  return undefined
}

/** A fixed time (2026-01-01T00:00:00Z) and the caller the step tests act as. */
export const T = Date.UTC(2026, 0, 1, 0, 0, 0)
export const ann = { tenant: 't1', userIntID: 2, username: 'ann' }
