/**
 * The aedes internals the broker reads, typed once: the connected clients by id (the broker looks up a device's
 * session), a client's MQTT parser (UNSUBSCRIBEs are watched on it, see hooks.ts) and its subscriptions.
 * All are aedes 2 properties its typings do not declare.
 */
import type { EventEmitter } from 'node:events'

declare module 'aedes' {
  interface Aedes {
    /** The connected clients by client id. */
    readonly clients: Record<string, Client | undefined>
  }
  interface Client {
    /** The client's MQTT packet parser (emits `packet` for each packet read). */
    readonly _parser?: EventEmitter
    /** The client's subscriptions by full filter, as aedes adds and removes them (see fanout.ts). */
    readonly subscriptions: Readonly<Record<string, unknown>>
  }
}
