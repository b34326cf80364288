/**
 * Topic filters of policies and device subscriptions. A device's topics are relative to its mountpoint
 * `/{protocol}/{tenantID}/{productID}/{deviceID}/`, so a filter here is the part after it.
 */

/** Longest topic filter a policy or a subscription may hold. */
export const TOPIC_MAX = 200

/**
 * Why `topic` is not a valid MQTT topic filter relative to a device's mountpoint, or null when it is.
 * Wildcards follow MQTT 3.1.1 §4.7.1: `#` only as the whole last level, `+` only as a whole level.
 * Policy and subscription topics are relative, as are the topics a device uses.
 */
export function topicFilterProblem(topic: string): string | null {
  if (topic.length === 0) return 'must not be empty'
  if (topic.length > TOPIC_MAX) return `at most ${TOPIC_MAX} characters`
  if (topic.includes('\u0000')) return 'must not contain the NUL character'
  if (topic.startsWith('/')) return "must be relative to the device's topic prefix: no leading '/'"
  const levels = topic.split('/')
  for (const [i, level] of levels.entries()) {
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1))
      return "'#' is only allowed as the whole last level"
    if (level.includes('+') && level !== '+') return "'+' is only allowed as a whole level"
  }
  return null
}
