/**
 * A command's status as the console shows it: its label in the console's language (the API's `commandStatusLabel`
 * while the console speaks the API's language, else the console's copy of the labels, as for a status that came
 * from the event stream) and, after a status that did not reach the device, why (`statusReason`, docs/commands.md):
 * "Not sent: device offline, no ttl", "未下发：设备离线且未设置 TTL".
 */
import { enEnums, enReasons, zhEnums, zhReasons } from '../enum-labels.ts'
import { browserLang, lang } from '../i18n.ts'

/** The Chinese label of each of the API's reasons, by its English phrase. */
const zhOf = new Map(
  Object.entries(enReasons).map(([name, phrase]) => [
    phrase,
    zhReasons[name as keyof typeof enReasons],
  ]),
)

const CANCELED_BY = 'canceled by '

/** A reason in the console's language: its Chinese label (`canceled by <user>`: 由 <user> 取消), or the phrase. */
export function reasonText(reason: string): string {
  if (lang.value === 'en') return reason
  if (reason.startsWith(CANCELED_BY)) return `由 ${reason.slice(CANCELED_BY.length)} 取消`
  return zhOf.get(reason) ?? reason
}

/** The statuses after which the reason is shown: the command did not reach the device, or the device said no. */
const WITH_REASON = new Set(['unsent', 'expired', 'timed_out', 'failed'])

/** The language the API answers labels in: the browser's (its Accept-Language), which the Language control keeps. */
const apiLang = () => browserLang(navigator.language)

/** A status's label: the API's while the console speaks the API's language, else the console's copy, else the code. */
export function statusLabel(code: string, apiLabel?: string | null): string {
  if (apiLabel && lang.value === apiLang()) return apiLabel
  return (lang.value === 'en' ? enEnums : zhEnums).commandStatus[code] ?? apiLabel ?? code
}

/** What a command's status reads as: its label, and its reason after a status that did not reach the device. */
export interface CommandState {
  commandStatus: string | null
  statusReason?: string | null
  commandStatusLabel?: string | null
}

/** "Not sent: device offline, no ttl" (未下发：设备离线且未设置 TTL); the label alone without a reason; '' without a status. */
export function commandText(c: CommandState): string {
  if (!c.commandStatus) return ''
  const label = statusLabel(c.commandStatus, c.commandStatusLabel)
  if (!c.statusReason || !WITH_REASON.has(c.commandStatus)) return label
  return `${label}${lang.value === 'en' ? ': ' : '：'}${reasonText(c.statusReason)}`
}

/** The `command.status` event's data as the console reads it (docs/alerts-webhooks.md lists its fields). */
export interface CommandStatusData {
  taskID?: string
  commandStatus?: string
  statusReason?: string | null
  deviceIntID?: number | null
  deviceID?: string | null
  groupID?: string | null
  parentID?: number | null
}

/** The data of a `command.status` event of the stream (`{data: {...}}`), when it has a taskID and a status. */
export function commandEventData(e: {
  type: string
  data: unknown
}): (CommandStatusData & { taskID: string; commandStatus: string }) | undefined {
  if (e.type !== 'command.status') return undefined
  const d = (e.data as { data?: CommandStatusData } | null)?.data
  if (!d?.taskID || !d.commandStatus) return undefined
  return d as CommandStatusData & { taskID: string; commandStatus: string }
}
