/**
 * A service in a child process (kill -9 and several-node tests): runs `script` (a file that starts the service and
 * prints one JSON line such as `{"url", "mqttPort"}` once it listens) with `env` added to the environment, and
 * resolves with the child and that line's fields. Rejects when the child exits first or after 60 s (a busy machine starts it slowly).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { ADMIN_EMAIL, ADMIN_PASSWORD, Client } from './service.ts'

const root = join(import.meta.dirname, '..', '..')

export type ChildService<T> = T & { child: ChildProcess }

export function startChildService<T extends object = { url: string; mqttPort: number }>(
  script: string,
  env: Record<string, string>,
): Promise<ChildService<T>> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, script)], {
    cwd: root,
    env: { ...process.env, ADMIN_EMAIL, ADMIN_PASSWORD, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} did not start: ${err}`))
    }, 60_000)
    child.stderr.on('data', (d) => (err += d))
    child.stdout.on('data', (d) => {
      out += d
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (!line) return
      clearTimeout(timer)
      resolve({ child, ...(JSON.parse(line) as T) })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${script} exited ${code}: ${err}`))
    })
  })
}

/** The first admin's client of a child service at `url` (signed in; throws unless the login answers 201). */
export async function childAdmin(url: string): Promise<Client> {
  const login = await new Client(url).post('/api/v1/login', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  })
  if (login.status !== 201) throw new Error(`login ${login.status}: ${login.text}`)
  return new Client(url, `Bearer ${login.body.token}`)
}

/** Resolves once `p` has exited (at once if it has). */
export const exited = (p: ChildProcess) =>
  new Promise((ok) =>
    p.exitCode !== null || p.signalCode !== null ? ok(null) : p.once('exit', ok),
  )

/** kill -9 of a child service, resolved once it is gone. */
export async function killChild(c: { child: ChildProcess }): Promise<void> {
  c.child.kill('SIGKILL')
  await exited(c.child)
}
