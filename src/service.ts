import { serve, type ServerType } from '@hono/node-server'
import { IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { join } from 'node:path'
import type { Config } from './kernel/config.ts'
import { createApp } from './app.ts'
import { Authenticator } from './http/auth.ts'
import { ensureFirstAdmin, jwtSecret } from './bootstrap.ts'
import type { Deps } from './deps.ts'
import { createTaskRunner } from './tasks.ts'
import { createServices, type Services } from './services/index.ts'
import { STATE_TASK } from './services/state.ts'
import { deferred } from './kernel/deferred.ts'
import { EventBus } from './kernel/events.ts'
import { publicEndpoints } from './kernel/endpoints.ts'
import { backupStores, cleanPartialBackups, createStores, type Stores } from '../store/index.ts'
import type { MetaStore } from '../store/types.ts'
import type { DeviceInbox, Pipeline } from '../ingest/types.ts'
import { createPipeline } from '../ingest/pipeline.ts'
import { startBroker } from '../ingest/broker/broker.ts'
import { createGatekeepers } from '../ingest/gate.ts'
import { createHttpIngest } from '../ingest/http-ingest.ts'
import { createLogger, errorLog, type LogDestination, type Logger } from './kernel/log.ts'
import { createMetrics, noMetrics, type Metrics } from './kernel/metrics.ts'
import { DiskGuard, type FreeSpaceReader } from './kernel/disk.ts'

export interface Service {
  deps: Deps
  port: number
  url: string
  firstAdmin?: { email: string; tenantID: string; password?: string }
  close(): Promise<void>
}

/** How long, and how many bytes, a closing connection still reads of an unread request body. */
const LINGER_MS = 2_000
const LINGER_BYTES = 64 * 1024 * 1024
/** The largest request line and headers, bytes. */
const MAX_REQUEST_HEAD = 96 * 1024

/**
 * An early answer (413) closes the connection, but closing a socket whose peer is still sending resets it, and
 * the client loses the answer. So the write side is shut first and the rest of the body read and dropped, for at
 * most LINGER_MS and LINGER_BYTES, before the socket is destroyed (a lingering close).
 */
function lingerOnClose(socket: Socket) {
  socket.destroySoon = function (this: Socket) {
    let read = 0
    const timer = setTimeout(() => this.destroy(), LINGER_MS).unref()
    this.on('data', (chunk: Buffer) => {
      if ((read += chunk.length) > LINGER_BYTES) this.destroy()
    })
    this.once('close', () => clearTimeout(timer))
    this.once('end', () => this.destroy())
    this.end()
    this.resume()
  }
}

/** Whether a request came with a body that nothing read (its answer was given early). */
function bodyUnread(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length']
  const hasBody =
    (length !== undefined && length !== '0') || incoming.headers['transfer-encoding'] !== undefined
  return hasBody && !incoming.readableEnded
}

/**
 * Options of startService beside the config (tests): `now` replaces the clock of commands, schedules and the
 * refused-connection throttle.
 */
export interface ServiceOptions {
  now?: () => number
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: LogDestination
  /** How webhook hosts are resolved (tests answer names of their own); default the system's resolver. */
  resolve?: (host: string) => Promise<string[]>
  /** When the retention job first checks whether a run is due, and how often after, ms (tests shorten them). */
  retention?: { firstCheckMs?: number; checkMs?: number }
  /** How the free space under DATA_DIR is read, and how often (tests fake a full disk); default statfs, 2 s. */
  disk?: { read?: FreeSpaceReader; intervalMs?: number }
  /** Hears of a database worker thread that died (see StoreOptions.onWorkerDeath; main.ts exits with 70). */
  onWorkerDeath?: (e: Error) => void
}

/**
 * What a start does before serving: the token signer, the first admin (a warning when ADMIN_PASSWORD can no longer
 * apply), and what a crash left: group publishes follow their members' commands, which survive a restart; a backup
 * cut short ends failed and its .partial directory goes (another process's backup still being written stays).
 */
async function bootstrap(config: Config, meta: MetaStore, logger: Logger) {
  const auth = new Authenticator(meta.accounts, await jwtSecret(config, meta.accounts))
  const firstAdmin = await ensureFirstAdmin(config, meta.accounts)
  if (!firstAdmin && config.ADMIN_PASSWORD)
    logger
      .child({ component: 'bootstrap' })
      .warn(
        'ADMIN_PASSWORD is ignored: users exist already. To set a new admin password, run `npm run reset-admin`',
      )
  // group commands follow their members' commands, state jobs their rows: both survive a restart
  await meta.tasks.failInterruptedTasks(['group_publish', STATE_TASK])
  for (const name of cleanPartialBackups(join(config.DATA_DIR, 'backups')))
    logger.child({ component: 'backup' }).warn({ name }, 'removed a backup interrupted by a crash')
  return { auth, firstAdmin }
}

/** The guard of DATA_DIR's free space, logging when ingest stops for a full disk and when it resumes. */
function diskGuard(config: Config, opts: ServiceOptions, logger: Logger): DiskGuard {
  const diskLog = logger.child({ component: 'disk' })
  return new DiskGuard({
    dir: config.DATA_DIR,
    minFreeMb: config.DISK_MIN_FREE_MB,
    read: opts.disk?.read,
    intervalMs: opts.disk?.intervalMs,
    onChange: (full, free) =>
      full
        ? diskLog.warn(
            { freeMb: Math.floor(free / 1024 / 1024), minFreeMb: config.DISK_MIN_FREE_MB },
            'the disk under DATA_DIR is full: ingest refuses new data until space is freed',
          )
        : diskLog.info(
            { freeMb: Math.floor(free / 1024 / 1024) },
            'disk space is back: ingest resumes',
          ),
  })
}

/** What metrics read at scrape time, and the transitions they count; returns the unsubscribe. */
function watchMetrics(
  metrics: Metrics,
  {
    bus,
    meta,
    pipeline,
    services,
  }: { bus: EventBus; meta: MetaStore; pipeline: Pipeline; services: Services },
): () => void {
  metrics.watch({
    queueDepth: () => pipeline.queued,
    streamClients: () => services.eventStream.clients(),
    alertBacklog: () => services.alertEngine.backlog(),
    states: async () => {
      const [commands, alerts] = await Promise.all([
        meta.commands.countPending(),
        meta.alerts.countCurrent(),
      ])
      return { commands, alerts }
    },
  })
  return metrics.listen(bus)
}

/** The work that runs beside requests: deliveries, the stream, commands, schedules, retention, folds, alerts. */
async function startBackground(services: Services) {
  services.webhooks.start()
  services.eventStream.start()
  await services.commands.start()
  services.schedules.start()
  services.retention.start()
  services.eventFold.start()
  services.alertEngine.start()
  await services.firmware.sweep()
  services.state.start()
  await services.stateDelivery.start()
}

/** Serves `app` on PORT and HOST, with the HTTP server's limits; resolves once it listens. */
function listen(app: ReturnType<typeof createApp>['app'], config: Config): Promise<ServerType> {
  return new Promise((resolve) => {
    const s = serve(
      {
        fetch: async (req, env) => {
          const res = await app.fetch(req, env)
          const incoming = env.incoming
          if (incoming instanceof IncomingMessage) {
            // an answer given before the request's body was read (401, 403, 404, 413 ...) ends the connection:
            // the unread body would otherwise be taken for the next request
            if (bodyUnread(incoming)) res.headers.set('connection', 'close')
            if (res.headers.get('connection') === 'close') lingerOnClose(incoming.socket)
          }
          return res
        },
        port: config.PORT,
        hostname: config.HOST,
        serverOptions: {
          // slow clients are cut off: requestTimeout ends once the request is received, so long polls and the
          // event stream, which answer later, are not affected
          headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
          requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
          // how often Node checks those two timeouts (its default, 30 s, would let a 10 s timeout run to 40 s)
          connectionsCheckingInterval: Math.min(1_000, config.HTTP_HEADERS_TIMEOUT_MS),
          // a request head of up to 96 KiB (Node's default is 16): GET /devices_latest names up to 1,000 deviceIDs
          // of up to 64 characters in its URL
          maxHeaderSize: MAX_REQUEST_HEAD,
        },
      },
      () => resolve(s),
    )
  })
}

/** Stops taking work, commits what was accepted, then closes the stores. */
async function shutdown(
  deps: Deps,
  {
    server,
    unwatch,
    stores,
    log,
  }: { server: ServerType; unwatch: () => void; stores: Stores; log: Logger },
) {
  const { services, broker, pipeline, tasks, disk } = deps
  deps.lifecycle.serving = false // readiness answers 503 from here on
  services.eventStream.close() // live streams end, so the server can close
  services.commands.releaseWaiters() // and so do long polls
  services.state.releaseWaiters()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await services.schedules.close()
  await services.retention.close()
  await services.eventFold.close()
  services.commands.close()
  services.stateDelivery.close()
  await services.ota.close()
  await broker.close()
  await pipeline.flush()
  await services.alertEngine.close()
  await pipeline.close()
  await services.webhooks.close()
  await services.state.close()
  await tasks.idle()
  unwatch()
  disk.close()
  await stores.close()
  log.info('shutdown complete')
}

/**
 * Keeps the authenticator's caches in step: a user changed or deleted is read again at their next request, and a
 * token revoked stops working at once.
 */
function forgetSessions(bus: EventBus, auth: Authenticator) {
  bus.on('user.changed', (e) => auth.forget(e.id))
  bus.on('user.deleted', (e) => auth.forget(e.id))
  bus.on('token.revoked', (e) => auth.forgetToken(e.jti))
}

/**
 * The ingest pipeline, the gatekeepers of devices and the broker (embedded, or a client of MQTT_URL); devices'
 * messages on reserved topics wait for `attachInbox` (the services are made after the broker).
 */
async function startIngest(
  config: Config,
  opts: ServiceOptions,
  {
    meta,
    telemetry,
    bus,
    disk,
    metrics,
    logger,
  }: Pick<Stores, 'meta' | 'telemetry'> & {
    bus: EventBus
    disk: DiskGuard
    metrics: Metrics
    logger: Logger
  },
) {
  const inbox = lateInbox()
  const pipeline = createPipeline({
    config,
    meta,
    telemetry,
    bus,
    disk,
    inbox: inbox.inbox,
    observer: metrics.ingest,
    now: opts.now,
    onError: errorLog(logger, 'ingest'),
  })
  const gatekeepers = createGatekeepers({ meta, bus, config, now: opts.now, logger })
  const brokerDeps = { config, meta, pipeline, bus, gatekeepers, logger, observer: metrics.broker }
  const broker = config.MQTT_URL
    ? // MQTT.js is loaded only for an external broker (~100 ms of start otherwise)
      await (await import('../ingest/external/client.ts')).connectExternalBroker(brokerDeps)
    : await startBroker(brokerDeps)
  return { pipeline, gatekeepers, broker, attachInbox: inbox.attach }
}

/**
 * The inbox of reserved topics ingest takes before the services exist (the broker starts first): messages wait until
 * the services' inbox is attached.
 */
function lateInbox() {
  const ready = deferred<DeviceInbox>()
  const inbox: DeviceInbox = {
    receive: (uplink) => ready.promise.then((s) => s.receive(uplink)),
  }
  return { inbox, attach: (s: DeviceInbox) => ready.resolve(s) }
}

/** The service's URL as devices reach it (the default base of firmware downloads). */
const publicUrl = (host: string, port: number) =>
  `http://${host.includes(':') ? `[${host}]` : host}:${port}`

/** Logs the ports the service listens on. */
function logStarted(log: Logger, config: Config, port: number, broker: Deps['broker']) {
  log.info(
    {
      httpPort: port,
      mqttPort: broker.port,
      mqttWsPort: broker.wsPort,
      mqttsPort: broker.tlsPort,
      ...(config.MQTT_URL ? { externalBroker: true } : {}),
    },
    'service started',
  )
}

/** Opens the stores, bootstraps the first admin, and serves the API. Used by main.ts and by the tests. */
export async function startService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const logger = createLogger({
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT,
    destination: opts.logDestination,
  })
  const metrics = config.METRICS ? createMetrics() : noMetrics
  const stores = await createStores(config, { logger, onWorkerDeath: opts.onWorkerDeath })
  const { meta, telemetry } = stores
  const { auth, firstAdmin } = await bootstrap(config, meta, logger)
  const tasks = createTaskRunner(meta.tasks, { logger })
  const bus = new EventBus()
  forgetSessions(bus, auth)
  const disk = diskGuard(config, opts, logger)
  await disk.start()
  const { pipeline, gatekeepers, broker, attachInbox } = await startIngest(config, opts, {
    meta,
    telemetry,
    bus,
    disk,
    metrics,
    logger,
  })
  const services = createServices({
    ...stores,
    events: bus,
    broker,
    config,
    now: opts.now,
    identities: gatekeepers.directory,
    logger,
    resolve: opts.resolve,
    retention: opts.retention,
    backupCopy: (dir) => backupStores(config, dir),
  })
  attachInbox(services.deviceInbox)
  const unwatch = watchMetrics(metrics, { bus, meta, pipeline, services })
  await startBackground(services)
  const deps: Deps = {
    disk,
    config,
    meta,
    services,
    auth,
    tasks,
    bus,
    telemetry,
    pipeline,
    ingest: createHttpIngest({
      credentials: meta.ingest,
      directory: gatekeepers.directory,
      pipeline,
    }),
    broker,
    gate: gatekeepers.gate,
    endpoints: publicEndpoints(config, {
      mqtt: broker.port,
      ws: broker.wsPort,
      mqtts: broker.tlsPort,
    }),
    lifecycle: { serving: false },
    metrics,
    logger,
  }
  const { app } = createApp(deps)
  const server = await listen(app, config)
  deps.lifecycle.serving = true
  const port = (server.address() as AddressInfo).port
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST
  await services.ota.start(publicUrl(config.PUBLIC_HOST ?? host, port))
  const serviceLog = logger.child({ component: 'service' })
  logStarted(serviceLog, config, port, broker)
  return {
    deps,
    port,
    url: `http://${host}:${port}`,
    firstAdmin,
    close: () => shutdown(deps, { server, unwatch, stores, log: serviceLog }),
  }
}
