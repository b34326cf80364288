import type { AlertRuleInput, AlertRuleRecord } from '../fields/alert-rules.ts'
import type { TableRepository } from './table.ts'

export type { AlertRuleInput, AlertRuleRecord } from '../fields/alert-rules.ts'

/**
 * A wait in progress for one (rule, device): the condition (phase raise) or clear condition held since `since`;
 * for a no-data rule (phase seen), `since` is the device's last uplink.
 */
export interface AlertState {
  ruleID: number
  deviceIntID: number
  phase: 'raise' | 'clear' | 'seen'
  /** Epoch ms the condition began to hold (the uplink was seen). */
  since: number
  /** The values that matched when it began. */
  detail: unknown
}

/**
 * Alert rules of a tenant and the pending waits of the alert engine. A list filters by ruleName, productID,
 * alertSeverity and enable; a delete takes the rules' pending waits with them.
 */
export interface AlertRuleRepository extends Omit<TableRepository<AlertRuleRecord>, 'update'> {
  /** Conflict('ruleName') when the tenant has a rule of that name. */
  create(
    tenant: string,
    userIntID: number | null,
    r: AlertRuleInput,
    now: number,
  ): Promise<AlertRuleRecord>
  /** Replaces a rule's fields (the service merged the edit) and drops its pending waits; NotFound as `get`. */
  update(tenant: string, id: number, r: AlertRuleInput, now: number): Promise<AlertRuleRecord>
  /** The enabled rules of a product. */
  enabledOf(productIntID: number): Promise<AlertRuleRecord[]>
  /** The pending waits of these devices. */
  states(deviceIntIDs: readonly number[]): Promise<AlertState[]>
  /**
   * Records waits (an existing wait of the same phase keeps its `since`; a seen one takes the new time) and drops
   * others, in one transaction.
   */
  saveStates(
    put: readonly AlertState[],
    drop: ReadonlyArray<{ ruleID: number; deviceIntID: number }>,
  ): Promise<void>
  /** The raise waits that have held long enough by `now` (for devices that went quiet meanwhile). */
  dueStates(now: number, limit: number): Promise<AlertState[]>
  /** Removes a wait if it is still the one that began at `since`: true for the one caller (of any node) that did. */
  claimState(s: AlertState): Promise<boolean>
}
