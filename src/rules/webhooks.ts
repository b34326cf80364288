import { isIP } from 'node:net'

/** The IPv4 address as a 32-bit number, or undefined when it is not dotted IPv4. */
function v4Number(ip: string): number | undefined {
  if (isIP(ip) !== 4) return undefined
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0)
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included), or undefined. */
function v6Groups(ip: string): number[] | undefined {
  if (isIP(ip) !== 6) return undefined
  let text = ip.replace(/%.*$/, '')
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (tail) {
    const n = v4Number(tail[1]!)!
    text = `${text.slice(0, -tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head, rest] = text.split('::') as [string, string | undefined]
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : [])
  const left = part(head)
  const right = part(rest)
  const zeros = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0)
  return [...left, ...zeros, ...right]
}

const inV4 = (n: number, base: string, bits: number) =>
  bits === 0 || (n ^ v4Number(base)!) >>> (32 - bits) === 0

/**
 * What kind of address an IP address (v4, v6, or v4 inside v6) is as a webhook target: `link-local`
 * (169.254.0.0/16, fe80::/10: cloud metadata services among them) and `unspecified` (0.0.0.0/8, ::) are never
 * allowed; `private` (loopback 127/8 and ::1, 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) only with
 * WEBHOOK_ALLOW_PRIVATE; anything else is `public`. Undefined when the text is not an IP address.
 */
export function addressKind(
  ip: string,
): 'link-local' | 'unspecified' | 'private' | 'public' | undefined {
  const addr = ip.replace(/^\[|\]$/g, '').toLowerCase()
  const n = v4Number(addr)
  if (n !== undefined) {
    if (inV4(n, '0.0.0.0', 8)) return 'unspecified'
    if (inV4(n, '169.254.0.0', 16)) return 'link-local'
    const priv: [string, number][] = [
      ['127.0.0.0', 8],
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
    ]
    return priv.some(([base, bits]) => inV4(n, base, bits)) ? 'private' : 'public'
  }
  const g = v6Groups(addr)
  if (!g) return undefined
  const embedded = (hi: number, lo: number) =>
    addressKind([hi >>> 8, hi & 0xff, lo >>> 8, lo & 0xff].join('.'))
  const zeroTo = (k: number) => g.slice(0, k).every((x) => x === 0)
  if (g.every((x) => x === 0)) return 'unspecified'
  if (zeroTo(7) && g[7] === 1) return 'private'
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach the IPv4 address
  if (zeroTo(5) && (g[5] === 0xffff || g[5] === 0)) return embedded(g[6]!, g[7]!)
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local'
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private'
  return 'public'
}

/** Why a webhook may not target this IP address, or undefined when it may. */
export function addressProblem(ip: string, allowPrivate: boolean): string | undefined {
  const kind = addressKind(ip)
  if (kind === 'link-local') return `${ip} is a link-local address`
  if (kind === 'unspecified') return `${ip} is an unspecified address`
  if (kind === 'private' && !allowPrivate)
    return `${ip} is a loopback or private address (WEBHOOK_ALLOW_PRIVATE is false)`
  return undefined
}

/**
 * The problem with a webhook URL's form (scheme, host), or undefined when it is acceptable as written. An IP
 * literal host is judged by addressProblem; a host name is resolved (at save and at every delivery) by the caller.
 */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'must be an http or https URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL'
  if (!url.hostname) return 'must name a host'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) {
    const problem = addressProblem(host, allowPrivate)
    if (problem) return `${problem}: not allowed`
  }
  return undefined
}
