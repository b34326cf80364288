/**
 * A group's "Set desired state" form: a JSON merge patch checked before it is sent, `PATCH /groups/{id}/state`, then
 * the task it answers read every 500 ms until it is done or failed, with its progress and its counts (total,
 * changed, unchanged, failed). Not rendered for viewers.
 */
import { useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import type { StateTaskWire } from '../api/wire.ts'
import { errorText } from './error-text.ts'
import { Figures } from './group-progress.tsx'
import { ErrorNote } from './paged-list.tsx'
import { submittedPatch, PatchField, stw } from './state-patch.tsx'
import { finished, useAlive, type Task } from './task.ts'

/** The result of a state task (the API types it as any JSON; a string is JSON text). */
interface StateResult {
  total: number
  changed: number
  unchanged: number
  failed: number
}

const resultOf = (task: Task): StateResult | null =>
  typeof task.result === 'string'
    ? (JSON.parse(task.result) as StateResult)
    : (task.result as StateResult | null)

/** The task's status (live), its progress and, once it has them, its counts. */
function StateTaskProgress({ task }: { task: Task }) {
  const s = stw()
  const r = resultOf(task)
  return (
    <div class="state-task">
      <p>
        <strong role="status" aria-label={s.taskStatus}>
          {s.taskState(task.status)}
        </strong>{' '}
        <span class="mono">{task.taskID}</span>
      </p>
      <progress max={100} value={task.progress} aria-label={s.taskProgress} />
      {r && (
        <Figures
          rows={[
            [s.total, r.total],
            [s.changed, r.changed],
            [s.unchanged, r.unchanged],
            [s.failed, r.failed],
          ]}
        />
      )}
    </div>
  )
}

export function GroupState({ groupIntID }: { groupIntID: number }) {
  const s = stw()
  const alive = useAlive()
  const [text, setText] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [task, setTask] = useState<Task | null>(null)
  const [busy, setBusy] = useState(false)

  const send = async (ev: Event) => {
    const patch = submittedPatch(ev, text, setError)
    if (!patch) return
    setTask(null)
    setBusy(true)
    try {
      const started = await api<StateTaskWire>(`/groups/${groupIntID}/state`, {
        method: 'PATCH',
        body: { desired: patch },
      })
      await finished(started.statusUrl, alive, { firstMs: 500, growth: 1, onTask: setTask })
    } catch (e) {
      if (alive()) setError(errorText(e))
    } finally {
      if (alive()) setBusy(false)
    }
  }

  return (
    <section class="card" aria-labelledby="group-state-h">
      <h2 id="group-state-h">{s.setDesired}</h2>
      <form class="state-form" onSubmit={(e) => void send(e)}>
        <PatchField value={text} onInput={setText} rows={4} />
        <div class="row-actions">
          <button type="submit" disabled={busy}>
            {s.setDesired}
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
      {task && <StateTaskProgress task={task} />}
    </section>
  )
}
