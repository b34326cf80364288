/**
 * The gatekeepers of device connections, built once per process and shared by whichever broker front runs (the
 * embedded broker or the external one) and by the hooks an external EMQX calls: one device directory, one ACL
 * checker, one connection tracker.
 */
import type { EventBus } from '../src/kernel/events.ts'
import type { Config } from '../src/kernel/config.ts'
import type { MetaStore } from '../store/types.ts'
import type { Logger } from '../src/kernel/log.ts'
import { AclChecker } from './acl.ts'
import { ConnectionTracker } from './connections.ts'
import { checkCredentials } from './credentials.ts'
import { DeviceDirectory } from './identity.ts'
import { RefusalGuard } from './refusals.ts'
import type { ConnectAttempt, DeviceGate, SessionEvent } from './types.ts'

export interface Gatekeepers {
  directory: DeviceDirectory
  acl: AclChecker
  tracker: ConnectionTracker
  /** Throttles the logging of refused connections and bans flapping addresses (used by the tracker too). */
  refusals: RefusalGuard
  /** The CNs of the enabled certificates bound to a device (authType 2 devices). */
  certsForDevice: (deviceIntID: number) => Promise<string[]>
  /** The same gatekeeping as an external broker's hooks ask for it. */
  gate: DeviceGate
}

/**
 * Builds the directory, the ACL checker, the refusal guard (its limits from the MQTT_REFUSAL_* and MQTT_FLAP_*
 * settings, on the clock `now`) and the tracker over the metadata store, and the gate over them.
 */
export function createGatekeepers(deps: {
  meta: MetaStore
  bus: EventBus
  config: Pick<
    Config,
    | 'MQTT_REFUSAL_LOG_SECONDS'
    | 'MQTT_FLAP_REFUSALS'
    | 'MQTT_FLAP_WINDOW_SECONDS'
    | 'MQTT_FLAP_BAN_SECONDS'
  >
  now?: () => number
  /** Where connects, disconnects and refusals are logged (component `broker`). */
  logger?: Logger
}): Gatekeepers {
  const { meta, bus, config } = deps
  const directory = new DeviceDirectory(meta.ingest, bus)
  const acl = new AclChecker(meta.policies, bus)
  const refusals = new RefusalGuard(
    {
      logSeconds: config.MQTT_REFUSAL_LOG_SECONDS,
      flapRefusals: config.MQTT_FLAP_REFUSALS,
      flapWindowSeconds: config.MQTT_FLAP_WINDOW_SECONDS,
      flapBanSeconds: config.MQTT_FLAP_BAN_SECONDS,
    },
    deps.now,
  )
  const tracker = new ConnectionTracker(
    meta,
    bus,
    refusals,
    deps.logger?.child({ component: 'broker' }),
  )
  const certsForDevice = (id: number) => meta.certs.certsForDevice(id)
  const gate = new HookGate(directory, acl, tracker, refusals, certsForDevice)
  return { directory, acl, tracker, refusals, certsForDevice, gate }
}

/**
 * DeviceGate over the shared gatekeepers. An external broker reports sessions by client id, so the gate keeps
 * each client's current session (its connectedAt, and the object ConnectionTracker tells sessions by).
 */
class HookGate implements DeviceGate {
  private sessions = new Map<string, { connectedAt: number | undefined; session: object }>()

  constructor(
    private readonly directory: DeviceDirectory,
    private readonly acl: AclChecker,
    private readonly tracker: ConnectionTracker,
    private readonly refusals: RefusalGuard,
    private readonly certsForDevice: (id: number) => Promise<string[]>,
  ) {}

  /** A flapping client id (or address, for ids naming no device) is denied at once, unlogged; a refusal is logged. */
  async authenticate(a: ConnectAttempt): Promise<boolean> {
    const known = await this.directory.byDeviceID(a.clientId)
    if (this.refusals.banned(a.clientId, a.ip, known !== undefined)) return false
    const verdict = await checkCredentials(known, {
      clientId: a.clientId,
      username: a.username,
      password: a.password,
      certCN: a.certCN,
      certsForDevice: this.certsForDevice,
    })
    if (verdict.ok) return true
    await this.tracker.refused({
      clientId: a.clientId,
      ip: a.ip,
      device: verdict.device,
      reason: verdict.reason,
    })
    return false
  }

  async authorize(clientId: string, action: 'publish' | 'subscribe', topic: string) {
    const device = await this.directory.byDeviceID(clientId)
    if (!device || device.blocked) return false
    return action === 'publish'
      ? this.acl.canPublish(device, topic)
      : this.acl.canSubscribe(device, topic)
  }

  async connected(e: SessionEvent & { ip: string | null; keepAlive: number }) {
    const device = await this.directory.byDeviceID(e.clientId)
    if (!device) return
    const session = { key: `${e.clientId}#${e.connectedAt ?? Date.now()}` }
    this.sessions.set(e.clientId, { connectedAt: e.connectedAt, session })
    await this.tracker.connected(device, { ip: e.ip, keepAlive: e.keepAlive, session })
  }

  /** A replaced session (takeover) or an older one than the current is logged but never marks it offline. */
  async disconnected(e: SessionEvent & { replaced: boolean }) {
    const device = await this.directory.byDeviceID(e.clientId)
    if (!device) return
    const current = this.sessions.get(e.clientId)
    const stale =
      e.replaced ||
      (e.connectedAt !== undefined &&
        current?.connectedAt !== undefined &&
        e.connectedAt !== current.connectedAt)
    if (!stale && current) this.sessions.delete(e.clientId)
    await this.tracker.disconnected(
      device,
      !stale && current ? current.session : { key: `${e.clientId}#stale` },
    )
  }
}
