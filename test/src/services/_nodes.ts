/**
 * What the two-node suites share: two service processes (_schedule-child.ts) over one metadata database, each with
 * a DATA_DIR of its own, on one clock.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exited, startChildService, type ChildService } from '../../_support/child-service.ts'
import type { Db } from '../../../store/libsql/db.ts'

type Node = ChildService<{ url: string }>

export interface TwoNodes {
  a: Node
  b: Node
  /** The metadata database both run on. */
  databaseUrl: string
  /** A raw handle on it, if the test opens one (closed after it). */
  db?: Db
  /** Stops both nodes; resolves once they are gone. */
  stop(): Promise<void>
}

/** Stops a node with SIGTERM (SIGKILL if it is not gone within 5 s); resolves once it is gone. */
export function stopNode(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode) return Promise.resolve()
  const hard = setTimeout(() => child.kill('SIGKILL'), 5000)
  child.kill('SIGTERM')
  return exited(child).then(() => clearTimeout(hard))
}

/**
 * Runs `body` with two nodes over a fresh directory, `env` added (the clock at the real speed unless CLOCK_SPEED
 * says otherwise); then stops them, closes the test's handle and removes the directory.
 */
export async function withTwoNodes(
  prefix: string,
  env: Record<string, string>,
  body: (n: TwoNodes) => Promise<void>,
) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const databaseUrl = `file:${join(dir, 'meta.db')}`
  const shared = {
    DATABASE_URL: databaseUrl,
    CLOCK_BASE: String(Date.now()),
    CLOCK_SPEED: '1',
    ...env,
  }
  const children: ChildProcess[] = []
  const start = async (name: string) => {
    const node = await startChildService<{ url: string }>('test/src/services/_schedule-child.ts', {
      ...shared,
      DATA_DIR: join(dir, name),
    })
    children.push(node.child)
    return node
  }
  const stop = async () => void (await Promise.all(children.map(stopNode)))
  let nodes: TwoNodes | undefined
  try {
    // one after the other: the first creates the schema and the admin
    nodes = { a: await start('a'), b: await start('b'), databaseUrl, stop }
    await body(nodes)
  } finally {
    await stop()
    void nodes?.db?.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
