/**
 * What devices send and receive, for the OpenAPI document and /docs: the four uplink payload forms that
 * ingest/decode.ts reads, the command envelope the broker publishes (ingest/broker/commands.ts) and the answer a
 * device gives. Examples only: the checks are in ingest/decode.ts.
 */

/** Form 1: data point ids and values, all at the time of arrival. */
export const PLAIN_UPLINK = { temp: 21.5, humidity: 40 }

/** Form 2 (ActorCloud event): each value with its own time (epoch s or ms, or a date-time text). */
export const EVENT_UPLINK = {
  data_type: 'event',
  stream_id: 's1',
  data: { temp: { time: 1700000000, value: 21.5 } },
}

/** Form 3 (gateway): the gateway's own values in `data.gateway`, its child devices' in `data.devices`. */
export const GATEWAY_UPLINK = {
  data_type: 'event',
  data: {
    gateway: { temp: 20.1 },
    devices: [{ device_id: 'child-1', data: { temp: { time: 1700000000, value: 21.5 } } }],
  },
}

/** Form 4: a device's answer to a command; `code` below 400 is `succeeded`, from 400 `failed`. */
export const COMMAND_RESPONSE = {
  data_type: 'response',
  result: { task_id: '<taskID>', code: 200 },
}

/** What a device receives for a command: the payload (JSON stays JSON) in an envelope naming the task. */
export const COMMAND_REQUEST = { data_type: 'request', task_id: '<taskID>', data: { led: 'on' } }

const json = (v: unknown) => `\`${JSON.stringify(v)}\``

/** The uplink forms as a list, for descriptions. */
export const UPLINK_FORMS = [
  `1. plain ${json(PLAIN_UPLINK)}: every value at the time of arrival`,
  `2. event ${json(EVENT_UPLINK)}: \`time\` in epoch seconds or milliseconds (or a date-time text); a value may also be given bare`,
  `3. gateway ${json(GATEWAY_UPLINK)}: the gateway's own values and each child device's (\`device_id\` a child of the gateway)`,
  `4. command response ${json(COMMAND_RESPONSE)}: the answer to a command (\`code\` < 400 succeeded, otherwise failed)`,
].join('\n')

/** How a device gets a command and answers it (device_publish, group_publish, the schedules). */
export const COMMAND_EXCHANGE =
  `The device receives ${json(COMMAND_REQUEST)} (\`data\` is the \`payload\`; a JSON payload stays JSON) on its ` +
  '`inbox` (every device is subscribed to it when it connects), or on the `topic` given. With QoS 1 its PUBACK ' +
  `makes the command \`delivered\`; it answers on any of its topics (HTTP devices: \`POST /api/v1/ingest\`) with ` +
  `${json(COMMAND_RESPONSE)}, which makes it \`succeeded\` (\`code\` < 400) or \`failed\`. HTTP devices and ` +
  'offline devices fetch their queued commands with `GET /api/v1/ingest/commands`.'

/** The "Devices and MQTT" section of the document's description (Markdown). */
export const DEVICES_AND_MQTT = [
  '## Devices and MQTT',
  'Devices connect to the embedded MQTT broker (TCP, TLS, WebSocket) with the client id = `deviceID`, the ' +
    'username = `deviceUsername` and the password = `token` (authType 1), or a client certificate (authType 2, ' +
    'over TLS). `GET /api/v1/devices/{id}/connection` answers all of it: broker URLs, credentials, topics and ' +
    'ready-made `mosquitto_pub`/`mosquitto_sub` lines.',
  'Topics: `/{protocol}/{tenantID}/{productID}/{deviceID}/<topic>`, where `<topic>` is a data stream topic ' +
    '(e.g. `telemetry`) or `inbox` (commands); the embedded broker also takes topics relative to that prefix. ' +
    'HTTP devices send the same payloads to `POST /api/v1/ingest` with Basic `deviceUsername:token`.',
  'Uplink payload forms (the data point ids are those of the product):',
  UPLINK_FORMS,
  `Commands: ${COMMAND_EXCHANGE}`,
].join('\n\n')
