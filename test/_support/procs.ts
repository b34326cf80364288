/** The process tree from Linux /proc, for the test runner and the tests that check what a process left behind. */
import { readdirSync, readFileSync } from 'node:fs'

/** Every descendant of `pid` now (children, their children ...), parents before their children. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = []
  const walk = (p: number) =>
    (children.get(p) ?? []).forEach((c) => {
      out.push(c)
      walk(c)
    })
  walk(pid)
  return out
}

/** A process's command line, its arguments joined by spaces ('' once it has exited). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
  } catch {
    return ''
  }
}

/** The names of a process's threads now (Linux: a worker thread carries the name it was started with). */
export function threadNames(pid: number | 'self' = 'self'): string[] {
  const names: string[] = []
  for (const task of readdirSync(`/proc/${pid}/task`))
    try {
      names.push(readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim())
    } catch {
      // ended meanwhile
    }
  return names
}

/** How many of this process's threads carry `name` now. */
export const threadsNamed = (name: string): number => threadNames().filter((n) => n === name).length
