/**
 * Callers asleep under a key (a command's taskID, a device's id): each wakes after its time, or earlier when its key
 * is woken, or when all are.
 */
export function sleepers<K>() {
  const map = new Map<K, Set<() => void>>()
  return {
    /** Resolves after `ms`, or earlier when `wake(key)` or `wakeAll()` is called. */
    sleep(key: K, ms: number): Promise<void> {
      return new Promise((resolve) => {
        const set = map.get(key) ?? new Set()
        map.set(key, set)
        const done = () => {
          clearTimeout(timer)
          set.delete(done)
          if (!set.size) map.delete(key)
          resolve()
        }
        const timer = setTimeout(done, ms)
        set.add(done)
      })
    },
    /** Wakes every caller asleep under `key`. */
    wake(key: K) {
      for (const f of map.get(key) ?? []) f()
    },
    /** Wakes every caller. */
    wakeAll() {
      for (const set of [...map.values()]) for (const f of [...set]) f()
    },
    /** How many keys have callers asleep. */
    get size() {
      return map.size
    },
  }
}

export type Sleepers<K> = ReturnType<typeof sleepers<K>>
