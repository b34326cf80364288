/**
 * How a webhook delivery reaches its receiver: a POST over node:http(s) whose connection goes only to an address
 * that was checked when it was resolved. The agents' `lookup` resolves the host (the injected resolver) and refuses
 * it when any of its addresses is link-local, unspecified, or private without WEBHOOK_ALLOW_PRIVATE; the socket
 * then connects to the address just checked, so a name that resolves elsewhere later (DNS rebinding) is checked
 * again at its next connection. IP literals are checked before the request. Redirects are never followed: a 3xx is
 * a failing answer like any other non-2xx.
 */
import http from 'node:http'
import https from 'node:https'
import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP, type LookupFunction } from 'node:net'
import { addressProblem } from '../rules/webhooks.ts'

/** Idle kept-alive connections are closed sooner than a receiver's usual 5 s keep-alive (no reuse of a closed one). */
const KEEP_ALIVE_MS = 4_000

/** Addresses a host name resolves to. */
export type Resolve = (host: string) => Promise<string[]>

export const systemResolve: Resolve = async (host) =>
  (await dnsLookup(host, { all: true })).map((a) => a.address)

/** A target refused for its address: the delivery's `lastError` says why. */
export class TargetRefused extends Error {}

/**
 * Resolves `host` and answers its addresses, or throws TargetRefused when any of them may not be a webhook
 * target (so a name with one bad address among good ones is refused whatever the order of the answers).
 */
export async function checkedAddresses(
  resolve: Resolve,
  host: string,
  allowPrivate: boolean,
): Promise<string[]> {
  const addresses = await resolve(host)
  if (!addresses.length) throw new Error(`${host} resolves to no address`)
  for (const a of addresses) {
    const problem = addressProblem(a, allowPrivate)
    if (problem) throw new TargetRefused(`refused: ${host} resolves to ${problem}`)
  }
  return addresses
}

/** A `lookup` for net.connect that answers only checked addresses. */
export function checkedLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(resolve, hostname, allowPrivate)
      .then((addresses) => {
        const all = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((a) => !options.family || a.family === options.family)
        if (!all.length) throw new Error(`${hostname} has no IPv${options.family} address`)
        if (options.all) callback(null, all)
        else callback(null, all[0]!.address, all[0]!.family)
      })
      .catch((e: Error) => callback(e, '', 0))
  }
}

export interface WebhookTransport {
  /** POSTs `body` and answers the response's status code (the response body is discarded). */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<number>
  /** Closes the kept-alive connections. */
  close(): void
}

export function webhookTransport(resolve: Resolve, allowPrivate: boolean): WebhookTransport {
  const lookup = checkedLookup(resolve, allowPrivate)
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: KEEP_ALIVE_MS, lookup }),
    'https:': new https.Agent({ keepAlive: true, timeout: KEEP_ALIVE_MS, lookup }),
  }
  return {
    post(url, headers, body, signal) {
      const target = new URL(url)
      const host = target.hostname.replace(/^\[|\]$/g, '')
      if (isIP(host)) {
        const problem = addressProblem(host, allowPrivate)
        if (problem) return Promise.reject(new TargetRefused(`refused: ${problem}`))
      }
      const secure = target.protocol === 'https:'
      const agent = secure ? agents['https:'] : agents['http:']
      const send = secure ? https.request : http.request
      return new Promise<number>((done, fail) => {
        const req = send(
          target,
          {
            method: 'POST',
            agent,
            signal,
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          },
          (res) => {
            res.resume()
            done(res.statusCode ?? 0)
          },
        )
        req.on('error', fail)
        req.end(body)
      })
    },
    close() {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  }
}
