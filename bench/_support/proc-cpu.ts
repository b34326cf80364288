/**
 * CPU time of another process (Linux): utime + stime of `/proc/<pid>/stat` (fields 14 and 15, in clock ticks of
 * 10 ms: `getconf CLK_TCK` is 100 on Linux x86 and arm64), for the CPU of a target that is not this process.
 */
import { readdirSync, readFileSync } from 'node:fs'

const TICK_US = 10_000

/** The CPU time (user + system, all threads) a process has used so far, in µs. */
export function procCpuUs(pid: number): number {
  return statCpuUs(`/proc/${pid}/stat`)
}

/** The CPU time of one thread (`tid`; a process's main thread is its pid), in µs. */
export function threadCpuUs(pid: number, tid = pid): number {
  return statCpuUs(`/proc/${pid}/task/${tid}/stat`)
}

function statCpuUs(path: string): number {
  const stat = readFileSync(path, 'utf8')
  // the command name (field 2) is in parentheses and may hold spaces: count fields after its last ')'
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_US // fields 14 and 15, counted from field 3
}

/** The ids of a process's threads now (`/proc/<pid>/task`). */
export function threadIds(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map(Number)
}

/** The CPU time of each thread of a process so far, µs by thread id (a thread gone meanwhile is left out). */
export function threadsCpuUs(pid: number): Map<number, number> {
  const out = new Map<number, number>()
  for (const tid of threadIds(pid)) {
    try {
      out.set(tid, threadCpuUs(pid, tid))
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out
}

/** A thread's name (`/proc/<pid>/task/<tid>/comm`: `db-writer`, `libuv-worker` ...), or '' when it has ended. */
export function threadName(pid: number, tid: number): string {
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}
