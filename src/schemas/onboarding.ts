import { z } from 'zod'
import { Int, NullableStr, Str } from './common.ts'
import { enumDoc, enumMeanings } from '../enums.ts'

/** Where a device's broker listeners are, as devices should be told (null: not served). */
export const BrokerUrls = z.object({
  mqtt: NullableStr.describe('MQTT over TCP, `mqtt://host:port`'),
  mqtts: NullableStr.describe('MQTT over TLS, `mqtts://host:port` (client certificates too)'),
  ws: NullableStr.describe('MQTT over WebSocket, `ws://host:port/mqtt`'),
  wss: NullableStr.describe('MQTT over secure WebSocket'),
})

/** A data stream a device may publish to: its relative and full topic and the data points it carries. */
export const UplinkTopic = z.object({
  topic: Str,
  fullTopic: Str,
  dataPointIDs: z.array(Str),
})

/**
 * What a device or gateway needs to connect: broker URLs, its credentials (the token for admins and users only),
 * its topics in full (a relative topic, without the prefix, works on the embedded broker too) and example
 * Mosquitto command lines.
 */
export const DeviceConnection = z.object({
  deviceIntID: Int,
  deviceID: Str,
  authType: Int.meta({
    ...enumDoc('authType'),
    description: `authType: ${enumMeanings('authType')}; a certificate device connects over mqtts`,
  }),
  brokers: BrokerUrls,
  clientID: Str.describe('the MQTT client id: the deviceID'),
  username: Str.describe('the MQTT username: deviceUsername'),
  password: NullableStr.describe(
    'the MQTT password: the token (null for viewers and certificate devices)',
  ),
  passwordHint: Str,
  topicPrefix: Str.describe('the mountpoint `/{protocol}/{tenantID}/{productID}/{deviceID}/`'),
  uplinkTopic: NullableStr.describe(
    'full topic of the first data stream (null while the product has none)',
  ),
  uplinkTopics: z.array(UplinkTopic),
  inboxTopic: Str.describe(
    'full topic commands arrive on (the device is subscribed when it connects)',
  ),
  commandResponseTopic: Str.describe(
    'where to answer a command with {"data_type":"response","result":{"task_id","code"}}',
  ),
  examplePayload: NullableStr.describe('one plain telemetry message for uplinkTopic (JSON text)'),
  mosquittoPub: NullableStr.describe(
    'publishes examplePayload (null without a broker URL or stream)',
  ),
  mosquittoSub: NullableStr.describe('receives the commands of the inbox'),
})
