/**
 * What each write route of the API records in the audit log (README "Audit log"): derived from its method and path
 * (`POST /devices` creates a device, `PUT /devices/:id` updates one, `DELETE /devices?ids=` deletes those,
 * `POST /firmware_rollouts/:id/pause` pauses one, `POST /groups/:id/devices` adds devices to a group), with the
 * exceptions below. The router runs each such route in an audit scope (src/kernel/audit.ts); a route this answers
 * null for records nothing (a dry run). test/src/routes/audit-log.test.ts holds every write route of the app to an
 * answer, and to the row it records.
 */
import type { AuditResource, AuditWhat } from '../kernel/audit.ts'

/**
 * Which records a route changes: its `:id`, its `?ids=`, the commands of its `?taskIDs=`, the caller, the record it
 * creates, or none.
 */
export type RouteTarget = 'id' | 'ids' | 'taskIDs' | 'self' | 'created' | 'none'

/** A route's audit declaration: its action and resource, and where its target is. */
export type RouteAudit = Omit<AuditWhat, 'target' | 'changed'> & { target: RouteTarget }

/** The first segment of a path → the kind of resource it names. */
const RESOURCE_OF: Record<string, AuditResource> = {
  users: 'user',
  applications: 'application',
  products: 'product',
  devices: 'device',
  gateways: 'gateway',
  groups: 'group',
  data_points: 'data_point',
  data_streams: 'data_stream',
  metrics: 'metric',
  product_resources: 'product_resource',
  app_templates: 'app_template',
  policies: 'policy',
  certs: 'cert',
  device_schedule_publish: 'schedule',
  group_schedule_publish: 'schedule',
  webhooks: 'webhook',
  current_alerts: 'alert',
  history_alerts: 'history_alert',
  alert_rules: 'alert_rule',
  firmware: 'firmware',
  firmware_rollouts: 'firmware_rollout',
}

/** Sub-collections a route adds records to or removes them from (`POST /groups/:id/devices`: add_devices). */
const MEMBERS = new Set(['devices', 'policies', 'subscriptions'])

/** Routes whose record is not what their path says, keyed `METHOD path`; null: records nothing. */
const EXCEPTIONS: Record<string, RouteAudit | null> = {
  'POST /logout': { action: 'logout', resourceType: 'user', target: 'self' },
  'PUT /users/me/password': { action: 'password', resourceType: 'user', target: 'self' },
  'POST /device_publish': {
    action: 'command',
    resourceType: 'device',
    source: 'device_command',
    target: 'created',
  },
  'DELETE /device_publish': {
    action: 'cancel_command',
    resourceType: 'device',
    source: 'device_command',
    target: 'taskIDs',
  },
  'POST /group_publish': {
    action: 'command',
    resourceType: 'group',
    source: 'group_command',
    target: 'created',
  },
  'POST /devices_import': { action: 'import', resourceType: 'task', target: 'created' },
  'POST /admin/backup': { action: 'backup', resourceType: 'task', target: 'created' },
  'POST /webhooks/:id/deliveries/:deliveryID/retry': {
    action: 'retry_delivery',
    resourceType: 'webhook',
    target: 'id',
  },
  /** A dry run of a rule over stored data: it changes nothing. */
  'POST /alert_rules/test': null,
}

/** What a write route records; undefined when its path names no resource this knows (the audit log's test keeps
 * every route of the app from that). */
export function routeAudit(method: string, path: string): RouteAudit | null | undefined {
  const key = `${method.toUpperCase()} ${path}`
  if (key in EXCEPTIONS) return EXCEPTIONS[key]
  const [base = '', id, sub, ...rest] = path.split('/').filter(Boolean)
  const resourceType = RESOURCE_OF[base]
  if (!resourceType || rest.length || (id !== undefined && id !== ':id')) return undefined
  const m = method.toLowerCase()
  if (id === undefined) {
    if (m === 'post') return { action: 'create', resourceType, target: 'created' }
    if (m === 'delete') return { action: 'delete', resourceType, target: 'ids' }
    return undefined
  }
  if (sub === undefined)
    return m === 'put' ? { action: 'update', resourceType, target: 'id' } : undefined
  if (m === 'patch' && sub === 'state') return { action: 'state', resourceType, target: 'id' }
  if (MEMBERS.has(sub) && (m === 'post' || m === 'delete'))
    return { action: `${m === 'post' ? 'add' : 'remove'}_${sub}`, resourceType, target: 'id' }
  if (m === 'post') return { action: sub, resourceType, target: 'id' }
  return undefined
}

/**
 * A device's update that sets `blocked` is recorded as a block or an unblock, a user's that sets `enable` as an
 * enable or a disable.
 */
export function actionOf(decl: RouteAudit, body: unknown): string {
  if (decl.action !== 'update') return decl.action
  const sent = body as { blocked?: unknown; enable?: unknown } | undefined
  if (decl.resourceType === 'device' || decl.resourceType === 'gateway') {
    if (sent?.blocked === undefined || sent.blocked === null) return decl.action
    return sent.blocked ? 'block' : 'unblock'
  }
  if (decl.resourceType === 'user' && (sent?.enable === 0 || sent?.enable === 1))
    return sent.enable ? 'enable' : 'disable'
  return decl.action
}
