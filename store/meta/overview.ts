/** A tenant's fleet at a glance: counts read in one read transaction. */
export interface FleetCounts {
  /** Devices (kind device), gateways not included. */
  devices: number
  gateways: number
  /** Devices and gateways connected now (deviceStatus 1). */
  online: number
  /** Devices and gateways blocked. */
  blocked: number
  /** Open (current) alerts by severity 1 to 4; a severity without alerts is 0. */
  openAlerts: Record<1 | 2 | 3 | 4, number>
  /** Uplink messages (event rows) with msgTime in [since, until). */
  messages: number
}

/** Reads the fleet overview; every figure is scoped to one tenant. */
export interface OverviewRepository {
  /**
   * The tenant's device, gateway, online and blocked counts, its open alerts by severity and the number of its
   * uplink messages received in `[since, until)` (epoch milliseconds), all from one read transaction.
   */
  counts(tenant: string, since: number, until: number): Promise<FleetCounts>
}
