/**
 * /firmware/rollouts/{id}: a rollout, live from the event stream: its status with Pause, Resume and Cancel as the
 * status allows (not for viewers; Cancel asks first), a progress bar of the devices done with it (updated, failed,
 * timed out or canceled, over the total) and the devices counted by state, its settings, and its devices paged and
 * filtered by state. Another tenant's rollout is the API's 404: Not found.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session, type Page } from '../api/client.ts'
import type { RolloutWire } from '../api/wire.ts'
import { errorText } from '../components/error-text.ts'
import {
  finishedShare,
  fww,
  OTA_STATES,
  rolloutName,
  statusText,
  targetText,
} from '../components/firmware-words.ts'
import { Figures } from '../components/group-progress.tsx'
import { ErrorNote } from '../components/paged-list.tsx'
import { NotFound } from '../components/record-page.tsx'
import { RolloutDevices } from '../components/rollout-devices.tsx'
import { useLiveRollout } from '../components/rollout-live.ts'
import { t } from '../i18n.ts'

type Action = 'pause' | 'resume' | 'cancel'

/** The actions a rollout in `status` takes. */
const actionsOf = (status: string): Action[] =>
  status === 'running' ? ['pause', 'cancel'] : status === 'paused' ? ['resume', 'cancel'] : []

/** The status, the actions it allows, the progress bar and the counts by state. */
function RolloutProgress(p: {
  rollout: RolloutWire
  canWrite: boolean
  onChanged: (r: RolloutWire) => void
}) {
  const w = fww()
  const r = p.rollout
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const { done, pct } = finishedShare(r)
  const act = async (action: Action) => {
    if (action === 'cancel' && !confirm(w.confirmCancel(rolloutName(r)))) return
    setBusy(true)
    setError(null)
    try {
      p.onChanged(
        await api<RolloutWire>(`/firmware_rollouts/${r.id}/${action}`, { method: 'POST' }),
      )
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  const label: Record<Action, string> = {
    pause: w.pause,
    resume: w.resume,
    cancel: w.cancelRollout,
  }
  const finished = w.finishedOf(done, r.total, pct)
  return (
    <section class="card" aria-labelledby="rollout-progress-h">
      <h2 id="rollout-progress-h">{w.progress}</h2>
      <div class="rollout-status">
        <span>
          {w.statusIs}{' '}
          <strong role="status" aria-label={w.rolloutStatus}>
            {statusText('rolloutStatus', r.status, r.statusLabel)}
          </strong>
        </span>
        {p.canWrite &&
          actionsOf(r.status).map((a) => (
            <button
              key={a}
              type="button"
              class={a === 'cancel' ? 'danger' : a === 'pause' ? 'secondary' : undefined}
              disabled={busy}
              onClick={() => void act(a)}
            >
              {label[a]}
            </button>
          ))}
      </div>
      <ErrorNote error={error} />
      <progress
        role="progressbar"
        aria-label={w.rolloutProgress}
        max={100}
        value={pct}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-valuetext={finished}
      />
      <p>{finished}</p>
      <div role="group" aria-label={w.counts}>
        <Figures rows={OTA_STATES.map((s) => [statusText('otaStatus', s), r.counts[s] ?? 0])} />
      </div>
    </section>
  )
}

/** The record ids of the rollout's product and group, for links to their pages (the rollout names them by ID). */
function useLinks(r: RolloutWire) {
  const [links, setLinks] = useState<{ product?: number; group?: number }>({})
  useEffect(() => {
    let stale = false
    const idOf = (path: string) =>
      api<Page<{ id: number }>>(path).then(
        (x) => x.items[0]?.id,
        () => undefined,
      )
    void Promise.all([
      idOf(`/products?productID=${encodeURIComponent(r.productID)}`),
      r.groupID ? idOf(`/groups?groupID=${encodeURIComponent(r.groupID)}`) : undefined,
    ]).then(([product, group]) => !stale && setLinks({ product, group }))
    return () => {
      stale = true
    }
  }, [r.productID, r.groupID])
  return links
}

/** A text, linked to `href` when there is one. */
const linked = (text: string, href: string | undefined) => (href ? <a href={href}>{text}</a> : text)

/** What the rollout was made with. */
function RolloutSettings({ rollout: r }: { rollout: RolloutWire }) {
  const w = fww()
  const links = useLinks(r)
  const pace = r.rampUp
    ? `${w.perMinute(r.ratePerMinute)}; ${w.rampUpText(r.rampUp.startPerMinute, r.rampUp.factor, r.rampUp.every)}`
    : w.perMinute(r.ratePerMinute)
  return (
    <section class="card" aria-labelledby="rollout-settings-h">
      <h2 id="rollout-settings-h">{w.settings}</h2>
      <dl class="info">
        <dt>{w.packageVersion}</dt>
        <dd>{linked(r.version, `/firmware?productID=${encodeURIComponent(r.productID)}`)}</dd>
        <dt>{w.product}</dt>
        <dd>{linked(r.productName, links.product ? `/products/${links.product}` : undefined)}</dd>
        <dt>{w.target}</dt>
        <dd>{linked(targetText(r), links.group ? `/groups/${links.group}` : undefined)}</dd>
        <dt>{w.onlyVersions}</dt>
        <dd>{r.fromVersions?.join(', ') || w.allVersions}</dd>
        <dt>{w.pace}</dt>
        <dd>{pace}</dd>
        <dt>{w.abort}</dt>
        <dd>
          {r.abortFailedPercent === null
            ? w.never
            : w.abortText(r.abortFailedPercent, r.abortMinFinished)}
        </dd>
        <dt>{w.timeout}</dt>
        <dd>{w.minutes(r.timeoutMinutes)}</dd>
        <dt>{w.retries}</dt>
        <dd>{r.retries}</dd>
        <dt>{t().created}</dt>
        <dd>
          {r.createAt ?? '—'} {r.createUser && <span class="muted">({r.createUser})</span>}
        </dd>
        <dt>{w.finishedAt}</dt>
        <dd>{r.finishedAt ?? '—'}</dd>
      </dl>
    </section>
  )
}

export function RolloutPage({ id }: { id: number }) {
  const live = useLiveRollout(id)
  const canWrite = session.value?.role !== 'viewer'
  const r = live.rollout
  if (live.error) return <NotFound error={live.error} />
  if (!r) return <p>{t().loading}</p>
  return (
    <section class="rollout">
      <h1>
        {fww().rollout} {rolloutName(r)}
      </h1>
      <RolloutProgress rollout={r} canWrite={canWrite} onChanged={live.set} />
      <RolloutDevices rollout={r} known={live.known} />
      <RolloutSettings rollout={r} />
    </section>
  )
}
