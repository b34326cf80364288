/** A device's paged log that follows the one event stream (device-logs.tsx, command-list.tsx). */
import { useEffect, useRef, useState } from 'preact/hooks'
import { deviceOf, onLive } from '../live.ts'
import { usePagedList } from './paged-list.tsx'

/**
 * One paged log of `path` (with `filters`), newest first; page 1 is read again (at most every 300 ms) when an
 * event of `types` about `deviceID` arrives.
 */
export function useLog<T>(
  path: string,
  deviceID: string,
  types: readonly string[],
  filters: Record<string, string> = {},
) {
  const [version, setVersion] = useState(0)
  const list = usePagedList<T>(path, filters, 0, version)
  const onFirst = useRef(true)
  onFirst.current = list.page === 1
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const off = onLive((e) => {
      if (!types.includes(e.type) || deviceOf(e) !== deviceID || !onFirst.current || timer) return
      timer = setTimeout(() => {
        timer = undefined
        setVersion((v) => v + 1)
      }, 300)
    })
    return () => {
      off()
      clearTimeout(timer)
    }
  }, [deviceID])
  return { ...list, bump: () => setVersion((v) => v + 1) }
}

/** A value as text (a gateway control log answers its payload parsed). */
export const text = (v: unknown) =>
  v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v)
