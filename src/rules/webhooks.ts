import { isIP } from 'node:net'

/**
 * Whether an IP address (v4, v6, or v4-mapped v6) is link-local: 169.254.0.0/16 or fe80::/10. Such hosts (cloud
 * metadata services among them) are refused as webhook targets.
 */
export function isLinkLocal(ip: string): boolean {
  const addr = ip.replace(/^\[|\]$/g, '').toLowerCase()
  const kind = isIP(addr)
  if (kind === 4) return addr.startsWith('169.254.')
  if (kind !== 6) return false
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(addr)
  if (mapped) return isLinkLocal(mapped[1]!)
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(addr)
  if (hex) return parseInt(hex[1]!, 16) >> 8 === 169 && (parseInt(hex[1]!, 16) & 0xff) === 254
  // fe80::/10: the first 10 bits are 1111111010
  const first = addr.startsWith('::') ? 0 : parseInt(addr.split(':')[0] || '0', 16)
  return (first & 0xffc0) === 0xfe80
}

/** The problem with a webhook URL's form (scheme, host), or undefined when it is acceptable as written. */
export function webhookUrlProblem(text: string): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'must be an http or https URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL'
  if (!url.hostname) return 'must name a host'
  if (isLinkLocal(url.hostname)) return 'a link-local host is not allowed'
  return undefined
}
