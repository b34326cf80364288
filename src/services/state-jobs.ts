/**
 * The jobs that patch the desired state of a group's or a product's devices. A job is a row (stored with its task
 * when the API accepted the patch); a node claims it for CLAIM_MS and applies the patch to PAGE devices at a time
 * in id order, recording after each page the last device done, the counts and the task's progress. A node that
 * stops leaves its job to be claimed again once the claim runs out, from the last page it recorded: a page done
 * twice changes nothing the second time (a merge patch applied again is no change).
 */
import { isObject, type JsonObject } from '../rules/state.ts'
import type { MetaStore, StateJob } from '../../store/types.ts'
import type { StateWriter } from './state-writer.ts'

/** Devices patched a step. */
export const JOB_PAGE = 100
/**
 * A job rests after each step for this share of the step's duration: the deltas it sends and the writes it makes
 * leave room for ingest (a 10,000-device group: ingest's PUBACK p99 within 2x of its value without the job).
 */
const REST = 1
/**
 * How long a claim lasts without a step; each step (a page, well under a second) renews it. A node that stops
 * leaves its job to the others, or to itself restarted, this long after its last step.
 */
const CLAIM_MS = 10_000
/** How often a node looks for jobs nobody holds (a stopped node's). */
const CHECK_MS = 1000

interface JobDeps {
  meta: MetaStore
  writer: StateWriter
  now: () => number
  log: (message: string, e?: unknown) => void
}

/** What a job's task reports as its result. */
export const jobResult = (j: Pick<StateJob, 'total' | 'changed' | 'unchanged' | 'failed'>) => ({
  total: j.total,
  changed: j.changed,
  unchanged: j.unchanged,
  failed: j.failed,
})

/** Patches one page of the job's devices and records it; false when the job is done or its claim was lost. */
async function step(d: JobDeps, job: StateJob, patch: JsonObject): Promise<boolean> {
  const { meta, writer, now } = d
  const devices = await meta.state.scopeDevices(job, job.afterDevice, JOB_PAGE)
  const outcomes = await Promise.allSettled(
    devices.map((dev) =>
      writer.apply({
        owner: { id: dev.id, tenantID: job.tenantID, deviceID: dev.deviceID },
        side: 'desired',
        patch,
      }),
    ),
  )
  for (const o of outcomes) {
    if (o.status === 'fulfilled') job[o.value.changed ? 'changed' : 'unchanged']++
    else job.failed++ // deleted meanwhile, or its desired state would pass the size limit
  }
  if (devices.length) job.afterDevice = devices.at(-1)!.id
  const until = now() + CLAIM_MS
  if (!(await meta.state.stepJob(job, job, until))) return false // another node holds it now
  job.claimedUntil = until
  const done = devices.length < JOB_PAGE
  const settled = job.changed + job.unchanged + job.failed
  const progress = done ? 100 : Math.min(99, Math.floor((100 * settled) / Math.max(1, job.total)))
  await meta.tasks.report(
    job.taskID,
    progress,
    `${settled} of ${job.total} devices`,
    JSON.stringify(jobResult(job)),
  )
  return !done
}

export function stateJobs(d: JobDeps) {
  const { meta, now } = d
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let again = false
  let closed = false

  async function run(job: StateJob) {
    await meta.tasks.markRunning(job.taskID)
    const parsed: unknown = JSON.parse(job.patch)
    const patch: JsonObject = isObject(parsed) ? parsed : {}
    for (;;) {
      const t0 = performance.now()
      if (closed || !(await step(d, job, patch))) break
      await new Promise((r) => setTimeout(r, (performance.now() - t0) * REST))
    }
    if (closed || job.claimedUntil < now()) return
    await meta.state.finishJob(job.id)
    await meta.tasks.finish(job.taskID, JSON.stringify(jobResult(job)))
  }

  /** Runs every job nobody holds, one after the other. */
  async function runAll() {
    do {
      again = false
      for (;;) {
        if (closed) return
        const job = await meta.state.claimJob(now(), now() + CLAIM_MS)
        if (!job) break
        await run(job)
      }
    } while (again && !closed)
  }

  function wake() {
    if (closed) return
    if (running) {
      again = true
      return
    }
    running = runAll()
      .catch((e) => d.log('state job failed', e))
      .finally(() => (running = undefined))
  }

  return {
    /** Looks for a job now (one was just stored). */
    wake,
    start() {
      timer = setInterval(wake, CHECK_MS)
      timer.unref()
      wake()
    },
    async close() {
      closed = true
      clearInterval(timer)
      await running
    },
  }
}
