import { accountService, type AccountDeps } from './accounts.ts'
import { alertService } from './alerts.ts'
import { certService } from './certs.ts'
import { deviceService } from './devices.ts'
import { groupService } from './groups.ts'
import { policyService } from './policies.ts'
import { productModelService } from './product-model.ts'
import { productResourceService } from './product-resources.ts'
import type { ServiceDeps } from './types.ts'
import { commandService, storeIdentities, type CommandDeps } from './commands.ts'
import { stateServices } from './state.ts'
import { firmwareService } from './firmware.ts'
import { otaServices } from './ota.ts'
import { errorLog } from '../kernel/log.ts'
import type { Refusal, StateMessage } from './state-inbox.ts'
import type { FirmwareFiles } from '../../store/firmware-files.ts'
import { scheduleService } from './schedules.ts'
import { alertEngine } from './alert-engine.ts'
import { alertRuleService } from './alert-rules.ts'
import { webhookService } from './webhooks.ts'
import type { Resolve } from './webhook-transport.ts'
import { eventStreamService } from './event-stream.ts'
import { retentionService, type RetentionConfig, type RetentionDeps } from './retention.ts'
import { backupService, type BackupDeps } from './backup.ts'
import { eventFoldService, type EventFoldDeps } from './event-fold.ts'

export type { Actor, ServiceDeps } from './types.ts'

/**
 * The domain services: one home for every write. Routes, CSV import and ingest's hooks call these; each runs the
 * rules, calls the store ports, performs every effect and then emits its domain event (src/kernel/events.ts).
 */
/** What the services are built over: the stores, the bus, the broker, the settings and the hooks tests replace. */
export type ServicesDeps = ServiceDeps &
  Pick<CommandDeps, 'broker' | 'config' | 'now' | 'identities'> & {
    config: AccountDeps['config'] &
      RetentionConfig &
      EventFoldDeps['config'] & {
        DATA_DIR: string
        TIMEZONE: string
        EVENT_RETENTION_DAYS: number
        WEBHOOK_ALLOW_PRIVATE: boolean
        STREAM_CLIENT_QUEUE_KB: number
        FIRMWARE_URL?: string
      }
    /** How webhook hosts are resolved (tests replace it); default the system's resolver. */
    resolve?: Resolve
    /** Writes a backup of the stores into a directory (store/index.ts backupStores). */
    backupCopy: BackupDeps['copy']
    /** When the retention job first checks and how often after (tests shorten them). */
    retention?: Pick<RetentionDeps, 'firstCheckMs' | 'checkMs'>
    /** The firmware packages' files (DATA_DIR/firmware). */
    firmwareFiles: FirmwareFiles
  }

type Inbox = { receive(m: StateMessage): Promise<Refusal | undefined> }

/** Devices' messages on reserved topics: `ota/` to the firmware inbox, `state/` to the state inbox. */
const deviceInbox = (state: Inbox, ota: Inbox): Inbox => ({
  receive: (m) => (/^\/*ota\//.test(m.topic) ? ota.receive(m) : state.receive(m)),
})

export function createServices(deps: ServicesDeps) {
  const commands = commandService({ ...deps, events: deps.events })
  const model = productModelService(deps)
  const resources = productResourceService(deps)
  const policies = policyService(deps)
  const { devices, gateways } = deviceService(deps)
  const engine = alertEngine(deps)
  const identities = deps.identities ?? storeIdentities(deps.meta)
  const firmware = firmwareService({
    meta: deps.meta,
    files: deps.firmwareFiles,
    now: deps.now ?? Date.now,
  })
  const ota = otaServices({
    ...deps,
    identities,
    firmware,
    now: deps.now ?? Date.now,
    firmwareUrl: deps.config.FIRMWARE_URL,
    log: errorLog(deps.logger, 'ota'),
  })
  const state = stateServices({ ...deps, identities, now: deps.now ?? Date.now })
  const webhooks = webhookService({
    ...deps,
    retentionDays: deps.config.EVENT_RETENTION_DAYS,
    allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE,
  })
  return {
    /** Webhooks and their delivery loop; `start()` before `commands.start()`, `close()` before the stores close. */
    webhooks,
    /** The live event stream; `start()` after `webhooks.start()`, `close()` before the HTTP server closes. */
    eventStream: eventStreamService({
      ...deps,
      queueBytes: deps.config.STREAM_CLIENT_QUEUE_KB * 1024,
    }),
    accounts: accountService({ ...deps, now: deps.now }),
    products: model.products,
    dataPoints: model.dataPoints,
    dataStreams: model.dataStreams,
    metrics: model.metrics,
    productResources: resources.productResources,
    appTemplates: resources.appTemplates,
    devices,
    gateways,
    groups: groupService(deps),
    policies: policies.policies,
    policyBindings: policies.bindings,
    subscriptions: policies.subscriptions,
    certs: certService(deps),
    alerts: alertService(deps),
    /** The alert engine: `start()` with the pipeline, `close()` after the pipeline's last flush. */
    alertEngine: engine,
    alertRules: alertRuleService({ ...deps, engine }),
    /** Commands to devices and groups; `start()` once the broker runs, `close()` before it stops. */
    commands,
    /**
     * Devices' state: `state` (documents and patches; `start()` with the other loops, `close()` before the stores
     * close), `stateInbox` (devices' state messages, ingest's DeviceStateInbox) and `stateDelivery` (deltas out;
     * `start()` once the broker runs, `close()` before it stops).
     */
    ...state,
    /** Devices' messages on reserved topics (ingest's DeviceInbox): `state/` and `ota/`. */
    deviceInbox: deviceInbox(state.stateInbox, ota.otaInbox),
    /** Scheduled commands; `start()` after `commands.start()`, `close()` before `commands.close()`. */
    schedules: scheduleService({ ...deps, commands }),
    /** The retention job: `start()` with the other loops, `close()` before the stores close. */
    retention: retentionService({ ...deps, ...deps.retention }),
    /** The event log's fold job: `start()` with the other loops, `close()` before the stores close. */
    eventFold: eventFoldService(deps),
    /** Firmware packages and their files; `sweep()` at start-up. */
    firmware,
    /** Firmware rollouts (made, paused, canceled; devices' reports). */
    rollouts: ota.rollouts,
    /** The rollouts' engine and their messages to devices: `start(url)` once serving, `close()` before the broker. */
    ota: ota.ota,
    /** Backups of the embedded stores (a task; the service's own tenant's admins only). */
    backup: backupService({ ...deps, copy: deps.backupCopy }),
  }
}

export type Services = ReturnType<typeof createServices>
