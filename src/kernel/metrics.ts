/**
 * Operator metrics in the Prometheus text format (prom-client, imported only here). Each service instance has its
 * own registry, so several services in one process (the tests) never share or collide. Labels are bounded sets
 * (methods, route templates, status codes, reasons, states): never a device, tenant or user id.
 *
 * Ingest reports through `IngestObserver` and `BrokerObserver`, plain interfaces handed to it in its deps; queue
 * depth, pending commands and open alerts are read at scrape time; command and alert transitions are counted from
 * the domain events.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { logLinesDropped } from './log.ts'
import type { EventBus } from './events.ts'

export const METRIC_PREFIX = 'devicecloud_'

/** Which telemetry store a batch went to. */
export type StoreKind = 'embedded' | 'influx'

/** What the ingest pipeline reports. */
export interface IngestObserver {
  /** A batch of `points` values was written to the telemetry store in `seconds`. */
  batchWritten(store: StoreKind, points: number, seconds: number): void
  /** Values (or whole messages) were not stored, by error code (`FORM_INVALID`, `DATA_NOT_FOUND`, ...). */
  rejected(reason: string, count: number): void
}

/** What a broker reports: its device connections and messages. */
export interface BrokerObserver {
  /** A device's connection was accepted (CONNACK sent). */
  connected(): void
  /** An accepted connection ended. */
  disconnected(): void
  /** A connection attempt was refused: `unknown`, `blocked`, `bad-credentials`, `certificate`, `protocol`, `flapping`, `unavailable`. */
  refused(reason: string): void
  /** A device published a message. */
  messageIn(): void
  /** The service published a message to devices (a command, a group message). */
  messageOut(): void
}

/** Read at every scrape. */
export interface ScrapeSources {
  /** Values and events queued or being written by the ingest pipeline. */
  queueDepth(): number
  /** Event streams (GET /api/v1/events/stream) open on this node. */
  streamClients?(): number
  /** Values of committed uplinks waiting for alert evaluation, and those dropped since the start (queue full). */
  alertBacklog?(): { queued: number; dropped: number }
  /** Commands waiting to be sent or acknowledged, and open alerts by severity (read from the store). */
  states?(): Promise<{ commands: { queued: number; sent: number }; alerts: Record<number, number> }>
}

/** How long states read from the store serve scrapes (several Prometheus servers, one store read). */
const STATES_TTL_MS = 5_000

export interface Metrics {
  readonly enabled: boolean
  /** The Content-Type of `render()`'s text. */
  readonly contentType: string
  /** One HTTP request: route is the route template (`/api/v1/devices/:deviceIntID`) or `unmatched`. */
  httpRequest(method: string, route: string, status: number, seconds: number): void
  readonly ingest: IngestObserver
  readonly broker: BrokerObserver
  /** Gauges read at scrape time. */
  watch(sources: ScrapeSources): void
  /** Counts command and alert transitions from the domain events; returns the unsubscribe. */
  listen(bus: EventBus): () => void
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])
/** Every method outside the usual ones counts as `OTHER`, so a client cannot grow the label set. */
const methodLabel = (m: string) => (METHODS.has(m) ? m : 'OTHER')

const noop = () => {}
const NO_INGEST: IngestObserver = { batchWritten: noop, rejected: noop }
const NO_BROKER: BrokerObserver = {
  connected: noop,
  disconnected: noop,
  refused: noop,
  messageIn: noop,
  messageOut: noop,
}

/** Metrics switched off (METRICS=false): every call does nothing and there is nothing to scrape. */
export const noMetrics: Metrics = {
  enabled: false,
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  httpRequest: noop,
  ingest: NO_INGEST,
  broker: NO_BROKER,
  watch: noop,
  listen: () => noop,
  render: async () => '',
}

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const BATCH_BUCKETS = [1, 10, 50, 100, 500, 1000, 2500, 5000, 10000, 50000]

/** Where a family of metrics registers, and how each is named. */
interface Family {
  registers: Registry[]
  name: (n: string) => string
}

/** HTTP requests by method, route template and status, and their durations. */
function httpMetrics({ registers, name }: Family): Metrics['httpRequest'] {
  const requests = new Counter({
    name: name('http_requests_total'),
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  })
  const duration = new Histogram({
    name: name('http_request_duration_seconds'),
    help: 'Time to answer an HTTP request (until the handler returned), by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  })
  return (method, route, status, seconds) => {
    const m = methodLabel(method)
    requests.inc({ method: m, route, status: String(status) })
    duration.observe({ method: m, route }, seconds)
  }
}

/** The embedded broker's connections and messages. */
function brokerMetrics({ registers, name }: Family): BrokerObserver {
  const open = new Gauge({
    name: name('mqtt_connections_open'),
    help: 'Device connections open on the embedded broker',
    registers,
  })
  const total = new Counter({
    name: name('mqtt_connections_total'),
    help: 'Device connections accepted by the embedded broker',
    registers,
  })
  const refused = new Counter({
    name: name('mqtt_connections_refused_total'),
    help: 'Device connection attempts refused by the embedded broker, by reason',
    labelNames: ['reason'] as const,
    registers,
  })
  const messagesIn = new Counter({
    name: name('mqtt_messages_in_total'),
    help: 'Messages devices published to the broker',
    registers,
  })
  const messagesOut = new Counter({
    name: name('mqtt_messages_out_total'),
    help: 'Messages the service published to devices (commands, group messages)',
    registers,
  })
  return {
    connected() {
      open.inc()
      total.inc()
    },
    disconnected: () => open.dec(),
    refused: (reason) => refused.inc({ reason }),
    messageIn: () => messagesIn.inc(),
    messageOut: () => messagesOut.inc(),
  }
}

/** The ingest pipeline's batches and what it did not store. */
function ingestMetrics({ registers, name }: Family): IngestObserver {
  const batchPoints = new Histogram({
    name: name('ingest_batch_points'),
    help: 'Values per batch written to the telemetry store, by store',
    labelNames: ['store'] as const,
    buckets: BATCH_BUCKETS,
    registers,
  })
  const batchDuration = new Histogram({
    name: name('ingest_batch_duration_seconds'),
    help: 'Time to write one batch to the telemetry store, by store',
    labelNames: ['store'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  })
  const rejected = new Counter({
    name: name('ingest_rejected_total'),
    help: 'Values or messages not stored, by error code',
    labelNames: ['reason'] as const,
    registers,
  })
  return {
    batchWritten(store, points, seconds) {
      batchPoints.observe({ store }, points)
      batchDuration.observe({ store }, seconds)
    },
    rejected: (reason, count) => rejected.inc({ reason }, count),
  }
}

/** A counter that follows a running total read at scrape time (it only ever grows). */
function totalCounter(
  family: Family,
  metric: string,
  help: string,
  read: () => number | undefined,
) {
  let seen = 0
  new Counter({
    name: family.name(metric),
    help,
    registers: family.registers,
    collect() {
      const total = read() ?? seen
      if (total > seen) this.inc(total - seen)
      seen = total
    },
  })
}

/** The gauges and counters read at scrape time from what `watch` handed over. */
function scrapedMetrics(family: Family, sources: () => ScrapeSources | undefined) {
  const { registers, name } = family
  const gauge = (metric: string, help: string, read: (s: ScrapeSources | undefined) => number) =>
    new Gauge({
      name: name(metric),
      help,
      registers,
      collect() {
        this.set(read(sources()))
      },
    })
  gauge(
    'ingest_queue_points',
    'Values and events queued or being written by the ingest pipeline',
    (s) => s?.queueDepth() ?? 0,
  )
  gauge(
    'stream_clients_open',
    'Live event streams (GET /api/v1/events/stream) open on this node',
    (s) => s?.streamClients?.() ?? 0,
  )
  gauge(
    'alert_queue_values',
    'Values of committed uplinks waiting for alert evaluation on this node',
    (s) => s?.alertBacklog?.().queued ?? 0,
  )
  totalCounter(
    family,
    'log_lines_dropped_total',
    'Log lines dropped because the reader of the log stopped reading (see src/kernel/log.ts LineSink)',
    logLinesDropped,
  )
  totalCounter(
    family,
    'alert_values_dropped_total',
    'Values of committed uplinks never evaluated for alerts because the queue was full, on this node',
    () => sources()?.alertBacklog?.().dropped,
  )
}

/** Pending commands and open alerts, read from the store at most every STATES_TTL_MS however many scrape. */
function storedStateMetrics({ registers, name }: Family, sources: () => ScrapeSources | undefined) {
  let states: ReturnType<NonNullable<ScrapeSources['states']>> | undefined
  let statesAt = -Infinity
  const readStates = () => {
    const s = sources()
    if (!s?.states) return undefined
    if (!states || performance.now() - statesAt > STATES_TTL_MS) {
      statesAt = performance.now()
      states = s.states().catch(() => ({ commands: { queued: 0, sent: 0 }, alerts: {} }))
    }
    return states
  }
  new Gauge({
    name: name('commands_pending'),
    help: 'Commands waiting to be sent (queued) or for their acknowledgement (sent), all tenants',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const s = await readStates()
      if (!s) return
      this.set({ status: 'queued' }, s.commands.queued)
      this.set({ status: 'sent' }, s.commands.sent)
    },
  })
  new Gauge({
    name: name('alerts_current'),
    help: 'Open alerts by severity (1 to 4), all tenants',
    labelNames: ['severity'] as const,
    registers,
    async collect() {
      const s = await readStates()
      if (!s) return
      for (const severity of [1, 2, 3, 4])
        this.set({ severity: String(severity) }, s.alerts[severity] ?? 0)
    },
  })
}

/** Command and alert transitions counted from the domain events; `listen` returns the unsubscribe. */
function transitionMetrics({ registers, name }: Family): Metrics['listen'] {
  const commands = new Counter({
    name: name('command_transitions_total'),
    help: 'Command state changes, by the state entered (queued, sent, delivered, succeeded, failed, ...)',
    labelNames: ['status'] as const,
    registers,
  })
  const alerts = new Counter({
    name: name('alert_transitions_total'),
    help: 'Alert changes, by transition (raised, cleared, acked)',
    labelNames: ['transition'] as const,
    registers,
  })
  return (bus) => {
    const onCommand = (e: { commandStatus: string }) => commands.inc({ status: e.commandStatus })
    const on = (transition: string) => () => alerts.inc({ transition })
    const raised = on('raised')
    const cleared = on('cleared')
    const acked = on('acked')
    bus.on('command.status', onCommand)
    bus.on('alert.raised', raised)
    bus.on('alert.cleared', cleared)
    bus.on('alert.acked', acked)
    return () => {
      bus.off('command.status', onCommand)
      bus.off('alert.raised', raised)
      bus.off('alert.cleared', cleared)
      bus.off('alert.acked', acked)
    }
  }
}

/** A registry of its own with the service's metrics and the process's default ones (event-loop lag included). */
export function createMetrics(): Metrics {
  const registry = new Registry()
  const family: Family = { registers: [registry], name: (n) => METRIC_PREFIX + n }
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX })
  let sources: ScrapeSources | undefined
  const httpRequest = httpMetrics(family)
  const broker = brokerMetrics(family)
  scrapedMetrics(family, () => sources)
  const ingest = ingestMetrics(family)
  storedStateMetrics(family, () => sources)
  const listen = transitionMetrics(family)
  return {
    enabled: true,
    contentType: registry.contentType,
    httpRequest,
    ingest,
    broker,
    watch(s) {
      sources = s
    },
    listen,
    render: () => registry.metrics(),
  }
}
