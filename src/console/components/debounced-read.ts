/**
 * A read that follows what is typed: `read` runs `delayMs` after the last change of `deps` (at once for delay 0),
 * an answer that a newer change made stale is dropped; `read` null means nothing to read (the data is then null).
 * The search lists that pick records by name share it (link-picker, devices-picker, picks-form).
 */
import { useEffect, useState } from 'preact/hooks'

export function useDebouncedRead<T>(
  read: (() => Promise<T>) | null,
  deps: unknown[],
  delayMs: number,
): { data: T | null; error: string | null } {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    if (!read) return setData(null)
    let stale = false
    const timer = setTimeout(
      () =>
        void read().then(
          (d) => !stale && (setData(d), setError(null)),
          (e: Error) => !stale && setError(e.message),
        ),
      delayMs,
    )
    return () => {
      stale = true
      clearTimeout(timer)
    }
  }, deps)
  return { data, error }
}
