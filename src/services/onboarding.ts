import type { MetaStore } from '../../store/types.ts'
import type { ModelPoint } from '../../store/meta/ingest.ts'
import { mountpoint, normalizeTopic, reportStreams } from '../kernel/topics.ts'
import type { PublicEndpoints } from '../kernel/endpoints.ts'
import type { z } from 'zod'
import type { DeviceConnection } from '../schemas/onboarding.ts'
import { NotFound } from '../kernel/errors.ts'

export type Connection = z.infer<typeof DeviceConnection>

/**
 * Onboarding: what a device or gateway of the tenant needs to reach the broker, answered from its record, its
 * product's data streams and the public broker URLs. `secrets` false (viewers) leaves the token out.
 */
export function onboardingService({
  meta,
  endpoints,
}: {
  meta: Pick<MetaStore, 'ingest'>
  endpoints: PublicEndpoints
}) {
  return {
    async connection(
      tenant: string,
      id: number,
      kinds: readonly ('device' | 'gateway')[],
      secrets: boolean,
    ): Promise<Connection> {
      // one read of the device and one of its product's model (points and streams)
      const d = await meta.ingest.device('id', id)
      if (!d || d.tenantID !== tenant || !kinds.includes(d.kind)) throw new NotFound()
      const model = await meta.ingest.productModel(d.productIntID)
      const points = new Map(model.points.map((p) => [p.dataPointID, p]))
      const prefix = mountpoint(d)
      const uplinkTopics = [...reportStreams(model.streams, model.points).values()].map((s) => ({
        topic: normalizeTopic(s.topic),
        fullTopic: prefix + normalizeTopic(s.topic),
        dataPointIDs: [...s.dataPointIDs],
      }))
      const first = uplinkTopics[0]
      const certificate = d.authType === 2
      const password = secrets && !certificate ? d.token : null
      const conn = {
        deviceIntID: d.id,
        deviceID: d.deviceID,
        authType: d.authType ?? 1,
        brokers: { ...endpoints },
        clientID: d.deviceID,
        username: d.deviceUsername,
        password,
        passwordHint: certificate
          ? 'no password: connect over mqtts with a client certificate bound to the device'
          : secrets
            ? "the device's token"
            : "the device's token (shown to the admin and user roles only)",
        topicPrefix: prefix,
        uplinkTopic: first?.fullTopic ?? null,
        uplinkTopics,
        inboxTopic: `${prefix}inbox`,
        commandResponseTopic: first?.fullTopic ?? `${prefix}response`,
        examplePayload: first ? examplePayload(first.dataPointIDs, points) : null,
      }
      const cmd = mosquitto(conn, certificate)
      return {
        ...conn,
        mosquittoPub:
          first && cmd && conn.examplePayload !== null
            ? `mosquitto_pub ${cmd} -q 1 -t ${sh(first.fullTopic)} -m ${sh(conn.examplePayload)}`
            : null,
        mosquittoSub: cmd ? `mosquitto_sub ${cmd} -q 1 -t ${sh(conn.inboxTopic)} -v` : null,
      }
    },
  }
}

/** A plain uplink (`{"<dataPointID>": value}`) with a sample value for each data point of the stream that has one. */
export function examplePayload(ids: string[], points: Map<string, ModelPoint>): string | null {
  const values: Record<string, unknown> = {}
  for (const id of ids) {
    const p = points.get(id)
    const v = p && sampleValue(p)
    if (v !== undefined) values[id] = v
  }
  return Object.keys(values).length ? JSON.stringify(values) : null
}

const FLOATS = new Set([1, 17, 18, 25])
const INTEGERS = new Set([15, 16, 21, 22])

/** A value the data point accepts (within its limits), undefined for types without a simple sample. */
function sampleValue(p: ModelPoint): unknown {
  if (FLOATS.has(p.pointDataType) || INTEGERS.has(p.pointDataType)) {
    const float = FLOATS.has(p.pointDataType)
    let v = float ? 21.5 : 21
    if (p.upperLimit !== null && v > p.upperLimit)
      v = float ? p.upperLimit : Math.floor(p.upperLimit)
    if (p.lowerLimit !== null && v < p.lowerLimit)
      v = float ? p.lowerLimit : Math.ceil(p.lowerLimit)
    return v
  }
  if ([5, 23].includes(p.pointDataType)) return true
  if (p.pointDataType === 3 || p.pointDataType === 12) return 'hello'
  if (p.pointDataType === 11) return 'x'.repeat(p.binarySize ?? 1)
  return undefined
}

/**
 * The connection options of Mosquitto's clients (host, port, client id, credentials; TLS files for mqtts): the
 * TCP listener for token devices, the TLS one for certificate devices (or when it is the only one).
 */
function mosquitto(
  c: Pick<Connection, 'brokers' | 'clientID' | 'username' | 'password'>,
  certificate: boolean,
): string | null {
  const url = certificate ? c.brokers.mqtts : (c.brokers.mqtt ?? c.brokers.mqtts)
  if (!url) return null
  const u = new URL(url)
  const tls = u.protocol === 'mqtts:'
  const host = u.hostname.replace(/^\[|\]$/g, '')
  const parts = ['-h', host, '-p', u.port || (tls ? '8883' : '1883'), '-i', c.clientID]
  parts.push('-u', c.username)
  if (!certificate) parts.push('-P', c.password ?? '<token>')
  if (tls) parts.push('--cafile', 'broker-ca.pem')
  if (certificate) parts.push('--cert', 'device.crt', '--key', 'device.key')
  return parts.map(sh).join(' ')
}

/** A shell word: as is when it holds only safe characters, else single-quoted. */
export function sh(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}
