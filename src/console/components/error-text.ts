/** The API's refusal as one line: its message and every field it names (`url: link-local address`). */
import { ApiError } from '../api/client.ts'

export function errorText(e: unknown): string {
  if (!(e instanceof ApiError)) return e instanceof Error ? e.message : String(e)
  const fields = Object.entries(e.errors ?? {}).map(([k, v]) => `${k}: ${String(v)}`)
  return fields.length ? `${e.message}: ${fields.join('; ')}` : e.message
}
