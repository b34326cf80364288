/** Following an asynchronous task of the API (a 202's statusUrl) from a component until it is done. */
import { useEffect, useRef } from 'preact/hooks'
import { api } from '../api/client.ts'
import type { TaskStatusWire } from '../api/wire.ts'

/** A task's status record (GET /task_status/{taskID}). */
export type Task = TaskStatusWire

/**
 * Reads the task at `statusUrl` until it is done (3) or failed (4: thrown with its message); `alive` false stops
 * early. Each read goes to `onTask`; the reads are `firstMs` apart, growing by `growth` up to `maxMs`.
 */
export async function finished(
  statusUrl: string,
  alive: () => boolean,
  opts: { firstMs?: number; growth?: number; maxMs?: number; onTask?: (t: Task) => void } = {},
): Promise<Task> {
  const { firstMs = 150, growth = 1.5, maxMs = 2000, onTask } = opts
  for (let wait = firstMs; ; wait = Math.min(wait * growth, maxMs)) {
    const task = await api<Task>(statusUrl)
    if (alive()) onTask?.(task)
    if (task.status >= 3 || !alive()) {
      if (task.status === 4) throw new Error(task.message ?? 'the task failed')
      return task
    }
    await new Promise((r) => setTimeout(r, wait))
  }
}

/** Whether the component is still mounted (a task followed after it went stops there). */
export function useAlive() {
  const alive = useRef(true)
  useEffect(() => () => void (alive.current = false), [])
  return () => alive.current
}
