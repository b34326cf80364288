import type { Config } from './config.ts'

/** Where devices reach the broker, as they should be told (onboarding, Variant B's broker strings). */
export interface PublicEndpoints {
  /** MQTT over TCP, `mqtt://host:port`. */
  mqtt: string | null
  /** MQTT over TLS, `mqtts://host:port`; the listener also takes client certificates (mutual TLS). */
  mqtts: string | null
  /** MQTT over WebSocket, `ws://host:port/mqtt`. */
  ws: string | null
  /** MQTT over secure WebSocket, only when PUBLIC_WSS_URL says where (a TLS proxy in front of the ws listener). */
  wss: string | null
}

/** The listening ports, as bound (a configured port 0 binds an ephemeral one). */
export interface BoundPorts {
  mqtt: number | null
  ws: number | null
  mqtts: number | null
}

/**
 * Each URL is its PUBLIC_* setting when set; otherwise, with the embedded broker, the bound listener at
 * PUBLIC_HOST (default: HOST, or `localhost` when HOST listens on every address). With an external broker
 * (MQTT_URL) only the PUBLIC_* settings say where devices connect: the service's own URL may be an internal one.
 */
export function publicEndpoints(config: Config, ports: BoundPorts): PublicEndpoints {
  const external = Boolean(config.MQTT_URL)
  const host =
    config.PUBLIC_HOST ??
    (config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST)
  const at = (scheme: string, port: number | null, path = '') =>
    external || port === null ? null : `${scheme}://${bracket(host)}:${port}${path}`
  return {
    mqtt: config.PUBLIC_MQTT_URL ?? at('mqtt', ports.mqtt),
    mqtts: config.PUBLIC_MQTTS_URL ?? at('mqtts', ports.mqtts),
    ws: config.PUBLIC_WS_URL ?? at('ws', ports.ws, '/mqtt'),
    wss: config.PUBLIC_WSS_URL ?? null,
  }
}

/** `host:port` of a URL (Variant B's broker strings), null without one. */
export function hostPort(url: string | null): string | null {
  if (!url) return null
  const u = new URL(url)
  const port = u.port || DEFAULT_PORTS[u.protocol.slice(0, -1)] || ''
  return port ? `${u.hostname}:${port}` : u.hostname
}

const DEFAULT_PORTS: Record<string, string> = { mqtt: '1883', mqtts: '8883', ws: '80', wss: '443' }

const bracket = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host)
