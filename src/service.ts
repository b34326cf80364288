import { serve, type ServerType } from '@hono/node-server'
import { IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Config } from './kernel/config.ts'
import { createApp } from './app.ts'
import { Authenticator } from './http/auth.ts'
import { ensureFirstAdmin, jwtSecret } from './bootstrap.ts'
import type { Deps } from './deps.ts'
import { createTaskRunner } from './tasks.ts'
import { createServices } from './services/index.ts'
import { EventBus } from './kernel/events.ts'
import { publicEndpoints } from './kernel/endpoints.ts'
import { createStores } from '../store/index.ts'
import { createPipeline } from '../ingest/pipeline.ts'
import { startBroker } from '../ingest/broker.ts'
import { connectExternalBroker } from '../ingest/external.ts'
import { createGatekeepers } from '../ingest/gate.ts'

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

/** Opens the stores, bootstraps the first admin, and serves the API. Used by main.ts and by the tests. */
/** Options of startService beside the config (tests): `now` replaces the clock of commands and schedules. */
export interface ServiceOptions {
  now?: () => number
}

export async function startService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const stores = await createStores(config)
  const { meta, telemetry } = stores
  const auth = new Authenticator(meta.accounts, await jwtSecret(config, meta.accounts))
  const firstAdmin = await ensureFirstAdmin(config, meta.accounts)
  // group publishes follow their members' commands, which survive a restart
  await meta.tasks.failInterruptedTasks(['group_publish'])
  const tasks = createTaskRunner(meta.tasks)
  const bus = new EventBus()
  bus.on('user.changed', (e) => auth.forget(e.id))
  bus.on('user.deleted', (e) => auth.forget(e.id))
  const pipeline = createPipeline({ config, meta, telemetry, bus })
  const gatekeepers = createGatekeepers({ meta, bus })
  const brokerDeps = { config, meta, pipeline, bus, gatekeepers }
  const broker = config.MQTT_URL
    ? await connectExternalBroker(brokerDeps)
    : await startBroker(brokerDeps)
  const services = createServices({
    meta,
    telemetry,
    events: bus,
    broker,
    config,
    now: opts.now,
    identities: gatekeepers.directory,
  })
  services.webhooks.start()
  services.eventStream.start()
  await services.commands.start()
  services.schedules.start()
  services.alertEngine.start()
  const deps: Deps = {
    config,
    meta,
    services,
    auth,
    tasks,
    bus,
    telemetry,
    pipeline,
    broker,
    gate: gatekeepers.gate,
    endpoints: publicEndpoints(config, {
      mqtt: broker.port,
      ws: broker.wsPort,
      mqtts: broker.tlsPort,
    }),
    lifecycle: { serving: false },
  }
  const { app } = createApp(deps)
  const server: ServerType = await new Promise((resolve) => {
    const s = serve(
      {
        fetch: async (req, env) => {
          const res = await app.fetch(req, env)
          if (res.headers.get('connection') === 'close' && env.incoming instanceof IncomingMessage)
            lingerOnClose(env.incoming.socket)
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
        },
      },
      () => resolve(s),
    )
  })
  deps.lifecycle.serving = true
  const port = (server.address() as AddressInfo).port
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST
  return {
    deps,
    port,
    url: `http://${host}:${port}`,
    firstAdmin,
    async close() {
      // stop taking work, commit what was accepted, then close the stores
      deps.lifecycle.serving = false // readiness answers 503 from here on
      services.eventStream.close() // live streams end, so the server can close
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await services.schedules.close()
      services.commands.close()
      await broker.close()
      await pipeline.flush()
      await services.alertEngine.close()
      await pipeline.close()
      await services.webhooks.close()
      await tasks.idle()
      await stores.close()
    },
  }
}
