/**
 * Crash-only handling of a dead database worker: the store it served fails every call from then on, and no thread
 * is restarted in place, so the process says why, closes what it can within CRASH_CLOSE_MS, and exits with 70
 * (EX_SOFTWARE) for its supervisor (systemd, Docker, Kubernetes) to start it again on the same files.
 */
export const EXIT_WORKER_DIED = 70
const CRASH_CLOSE_MS = 2000

/**
 * The `onWorkerDeath` of a process: the first call logs and closes `service()` (when it is up) at most
 * CRASH_CLOSE_MS, then exits; later calls do nothing.
 */
export function exitOnWorkerDeath(
  service: () => { close(): Promise<void> } | undefined,
  exit: (code: number) => void = (code) => process.exit(code),
  log: (line: string) => void = (line) => console.error(line),
): (e: Error) => void {
  let dying = false
  return (e) => {
    if (dying) return
    dying = true
    log(
      `[devicecloud] a database worker died (${e.message}): exiting with ${EXIT_WORKER_DIED} for a restart`,
    )
    const timer = setTimeout(() => exit(EXIT_WORKER_DIED), CRASH_CLOSE_MS)
    timer.unref()
    const svc = service()
    void (svc ? svc.close().catch(() => undefined) : Promise.resolve()).finally(() => {
      clearTimeout(timer)
      exit(EXIT_WORKER_DIED)
    })
  }
}
