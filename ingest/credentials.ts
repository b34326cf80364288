import { safeEqual } from '../src/kernel/secrets.ts'
import { usesCertificate, type CredentialsResult, type DeviceIdentity } from './types.ts'

/** What a device presented at CONNECT (or an HTTP/EMQX auth hook). */
export interface PresentedCredentials {
  /** The MQTT client id: the deviceID. */
  clientId: string
  /** The deviceUsername. */
  username?: string
  /** The token. */
  password?: Buffer | string
  /** The CN of the verified TLS client certificate, when there is one. */
  certCN?: string
  /** The CNs of the enabled certificates bound to a device (meta.certs.certsForDevice). */
  certsForDevice?: (id: number) => Promise<string[]>
}

export type { CredentialsResult }

/**
 * Checks a device's credentials: client id = deviceID, username = deviceUsername,
 * password = token (compared in constant time). An authType 2 device must present a verified client certificate
 * whose CN is the CN of an enabled certificate bound to it (else `certificate`). Unknown and blocked devices are
 * refused. `device` is the one the client id names (the caller has looked it up: it also decides flapping bans).
 */
export async function checkCredentials(
  device: DeviceIdentity | undefined,
  c: PresentedCredentials,
): Promise<CredentialsResult> {
  if (!device || !c.clientId) return { ok: false, reason: 'unknown' }
  if (device.blocked) return { ok: false, reason: 'blocked', device }
  return verify(device, c)
}

/**
 * HTTP Basic credentials `deviceUsername:token` (HTTP ingest): the device is the first of `devices(username)` whose
 * token it is (tokens compared in constant time, also when no device has that username), checked then as a
 * connecting device is; a certificate device is refused (`certificate`), since HTTP carries no client
 * certificate. Blocked comes last: over HTTP the credentials name the device, so only their holder learns it.
 */
export async function checkBasicCredentials(
  devices: (username: string) => Promise<DeviceIdentity[]>,
  username: string,
  token: string,
): Promise<CredentialsResult> {
  const candidates = await devices(username)
  let found: DeviceIdentity | undefined
  for (const d of candidates) if (safeEqual(token, d.token) && !found) found = d
  if (!candidates.length) safeEqual(token, '\u0000'.repeat(token.length + 1))
  if (!found) return { ok: false, reason: 'bad-credentials' }
  const verdict = await verify(found, { clientId: found.deviceID, username, password: token })
  if (verdict.ok && found.blocked) return { ok: false, reason: 'blocked', device: found }
  return verdict
}

/** The check every login makes of the device it names: its certificate (authType 2), else username and token. */
async function verify(device: DeviceIdentity, c: PresentedCredentials): Promise<CredentialsResult> {
  if (usesCertificate(device)) {
    const cns = c.certCN && c.certsForDevice ? await c.certsForDevice(device.id) : []
    const ok = c.certCN !== undefined && cns.includes(c.certCN)
    return ok ? { ok: true, device } : { ok: false, reason: 'certificate', device }
  }
  const password = c.password === undefined ? undefined : c.password.toString()
  const userOk = c.username !== undefined && safeEqual(c.username, device.deviceUsername)
  const tokenOk = password !== undefined && safeEqual(password, device.token)
  return userOk && tokenOk ? { ok: true, device } : { ok: false, reason: 'bad-credentials', device }
}
