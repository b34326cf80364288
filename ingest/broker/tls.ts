/**
 * MQTT over TLS (MQTTS_PORT) for devices that authenticate with a client certificate (authType 2):
 * the listener asks every client for a certificate, and a certificate counts only when the device's own tenant CA
 * issued it, it is within its validity, and its CN is the CN of an enabled certificate bound to the device.
 * Token devices may use the listener too (TLS is then only the transport).
 */
import { createServer, type Server, TLSSocket } from 'node:tls'
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { once } from 'node:events'
import type { Socket } from 'node:net'
import type { Aedes, Client } from 'aedes'
import type { Config } from '../../src/kernel/config.ts'
import { createCa, type CertAndKey } from '../../src/kernel/pki.ts'
import type { MetaStore } from '../../store/types.ts'
import type { DeviceIdentity } from '../types.ts'
import { addressOf, type BrokerLimits } from './limits.ts'

/**
 * The listener's certificate: MQTTS_CERT_FILE / MQTTS_KEY_FILE, or a self-signed one made once and kept in the
 * metadata settings (devices must then trust it explicitly: production deployments configure their own).
 */
export async function serverCredentials(
  config: Config,
  meta: Pick<MetaStore, 'accounts'>,
): Promise<CertAndKey> {
  if (config.MQTTS_CERT_FILE && config.MQTTS_KEY_FILE)
    return {
      cert: readFileSync(config.MQTTS_CERT_FILE, 'utf8'),
      key: readFileSync(config.MQTTS_KEY_FILE, 'utf8'),
    }
  const stored = await meta.accounts.setting('mqtts_server')
  if (stored) return JSON.parse(stored) as CertAndKey
  const made = await createCa('mqtts-server')
  return JSON.parse(
    await meta.accounts.settingOnce('mqtts_server', JSON.stringify(made)),
  ) as CertAndKey
}

/** Starts the TLS listener; every connection asks for a client certificate but is not refused without one. */
export async function listenTls(
  broker: Aedes,
  port: number,
  host: string,
  creds: CertAndKey,
  limits: BrokerLimits,
) {
  const sockets = new Set<Socket>()
  const tls: Server = createServer(
    { ...creds, requestCert: true, rejectUnauthorized: false },
    (socket) => {
      limits.watch(socket, addressOf(socket))
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
      socket.on('error', () => {}) // aedes reports it as clientError
      broker.handle(socket)
    },
  )
  tls.on('tlsClientError', () => {}) // a failed handshake concerns that client only
  tls.on('connection', (raw: Socket) => limits.admit(raw)) // counted from accept, before the handshake
  tls.listen(port, host)
  await once(tls, 'listening')
  return { tls, sockets }
}

/** The CN of a certificate's subject (`CN=...` line), or undefined. */
export function commonName(cert: X509Certificate): string | undefined {
  const line = cert.subject.split('\n').find((l) => l.startsWith('CN='))
  return line?.slice(3)
}

/**
 * The CN of the client certificate of `client`'s TLS connection, when the device's tenant CA issued it and it is
 * valid now; undefined otherwise (no TLS, no certificate, another CA, expired).
 */
export async function verifiedClientCN(
  client: Client,
  device: DeviceIdentity,
  caOf: (tenantID: string) => Promise<string | undefined>,
  now = Date.now(),
): Promise<string | undefined> {
  const conn = client.conn
  if (!(conn instanceof TLSSocket)) return undefined
  const peer = conn.getPeerX509Certificate()
  const caPem = peer ? await caOf(device.tenantID) : undefined
  if (!peer || !caPem) return undefined
  const ca = new X509Certificate(caPem)
  const valid = Date.parse(peer.validFrom) <= now && now <= Date.parse(peer.validTo)
  return valid && peer.checkIssued(ca) && peer.verify(ca.publicKey) ? commonName(peer) : undefined
}
