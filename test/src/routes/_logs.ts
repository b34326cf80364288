/** What the log suites share. */

/** A control log's command fields, in the order its record names them (after the payload and its sender). */
export const COMMAND_KEYS = [
  'taskID',
  'commandStatus',
  'commandStatusLabel',
  'statusReason',
  'qos',
  'sentAt',
  'deliveredAt',
  'respondedAt',
  'responseCode',
  'responsePayload',
  'expiresAt',
  'scheduleID',
  'parentTaskID',
]
