import { safeEqual } from '../src/kernel/secrets.ts'
import type { DeviceDirectory } from './identity.ts'
import { usesCertificate, type DeviceIdentity } from './types.ts'

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

export type CredentialsResult =
  | { ok: true; device: DeviceIdentity }
  | {
      ok: false
      reason: 'unknown' | 'blocked' | 'bad-credentials' | 'certificate'
      device?: DeviceIdentity
    }

/**
 * Checks a device's credentials: client id = deviceID, username = deviceUsername,
 * password = token (compared in constant time). An authType 2 device must present a verified client certificate
 * whose CN is the CN of an enabled certificate bound to it (else `certificate`). Unknown and blocked devices are
 * refused.
 */
export async function checkCredentials(
  dir: DeviceDirectory,
  c: PresentedCredentials,
): Promise<CredentialsResult> {
  const device = c.clientId ? await dir.byDeviceID(c.clientId) : undefined
  if (!device) return { ok: false, reason: 'unknown' }
  if (device.blocked) return { ok: false, reason: 'blocked', device }
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
