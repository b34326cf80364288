/** The one HTTP client of the console: JSON to and from /api/v1, the session's bearer token, the API's errors. */
import { signal } from '@preact/signals'
import type { DeviceItemWire, LatestValueWire } from './wire.ts'

const TOKEN_KEY = 'devicecloud.session'

/** What POST /api/v1/login answers (the fields the console uses). */
export interface Session {
  token: string
  email: string
  username: string
  role: string
  tenantID: string
}

/** The API's error body: `{errorCode, message, errors}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly errors: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

const stored = (): Session | null => {
  try {
    const raw = localStorage.getItem(TOKEN_KEY)
    return raw ? (JSON.parse(raw) as Session) : null
  } catch {
    return null
  }
}

/** The signed-in session (kept in localStorage so that it survives a reload); null when signed out. */
export const session = signal<Session | null>(stored())

function setSession(s: Session | null) {
  if (s) localStorage.setItem(TOKEN_KEY, JSON.stringify(s))
  else localStorage.removeItem(TOKEN_KEY)
  session.value = s
}

/** The Authorization header of the session, if any. */
export const authorization = (): Record<string, string> =>
  session.value ? { authorization: `Bearer ${session.value.token}` } : {}

/** The API variant index.html names (`devicecloud-api-variant`): the pages are written against Variant A. */
const variantB = () =>
  document.querySelector('meta[name="devicecloud-api-variant"]')?.getAttribute('content') === 'B'

/**
 * Calls `/api/v1{path}` in Variant A's shapes; answers the parsed JSON body, throws ApiError otherwise. A 401 ends
 * the session. Under Variant B, variant.ts (loaded only then) translates the request and the answer.
 */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  if (variantB())
    return (await import('./variant.ts')).adaptB(path, init, { send: call, invalid }) as Promise<T>
  return call<T>(path, init)
}

const invalid = (message: string, errors: Record<string, unknown>) =>
  new ApiError(422, 'FORM_INVALID', message, errors)

/** One HTTP call of the API as the service answers it. */
async function call<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorization() }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await res.text()
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // not JSON (a proxy's error page): the status speaks for it
    if (res.ok) throw new ApiError(res.status, 'BAD_RESPONSE', 'the answer is not JSON')
  }
  if (res.ok) return body as T
  const e = (body ?? {}) as {
    errorCode?: string
    message?: string
    errors?: Record<string, unknown>
  }
  if (res.status === 401 && session.value && path !== '/login') setSession(null)
  throw new ApiError(res.status, e.errorCode ?? 'ERROR', e.message ?? res.statusText, e.errors)
}

/** One page of a list endpoint. */
export interface Page<T> {
  items: T[]
  meta: { count: number; page: number; limit: number }
}

/** A device as the list answers it (the detail answers more: DeviceWire). */
export type Device = DeviceItemWire

/** GET /devices/{id}/latest: one row per data point. */
export type LatestValue = LatestValueWire

export async function signIn(email: string, password: string): Promise<void> {
  setSession(await api<Session>('/login', { method: 'POST', body: { email, password } }))
}

/** Forgets the session without calling the API (its token was refused, or another tab signed out). */
export const forgetSession = () => setSession(null)

/**
 * Forgets the session at once, then revokes its token (best effort). The revoke is a keepalive request, so that a
 * navigation right after the click neither cancels it nor finds the session still stored. /logout has one shape
 * under both variants.
 */
export async function signOut(): Promise<void> {
  const headers = { accept: 'application/json', ...authorization() }
  setSession(null)
  try {
    await fetch('/api/v1/logout', { method: 'POST', headers, keepalive: true })
  } catch {
    // offline, or the page went away: the session is forgotten all the same
  }
}
