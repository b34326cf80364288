/**
 * The ports the services declare and other folders implement: the running broker front (ingest/broker/broker.ts and
 * ingest/external/client.ts implement CommandBroker; src/service.ts hands it over).
 */
import type { IngestDevice } from '../../store/types.ts'

/** A device or gateway as the broker addresses it: its record id, deviceID and mountpoint parts. */
export type DeviceIdentity = IngestDevice

/** What the command services need of the broker devices are connected to (embedded or external). */
export interface CommandBroker {
  /**
   * True when the broker sees a device's PUBACK (the embedded broker): a QoS 1 publish that resolves true was
   * delivered. Through an external broker it only means the broker took the message.
   */
  readonly confirmsDelivery: boolean
  /**
   * True for an external broker every node publishes through: one publish reaches the device whichever node made
   * it, and a retained message waits there for the device's next subscription. False for the embedded broker,
   * which reaches only the devices connected to this node.
   */
  readonly shared: boolean
  /** Whether the device has a session this front can publish to (an external broker: assumed). */
  connected(device: DeviceIdentity): boolean
  /**
   * Publishes a command to a device's relative topic (QoS 1 unless told): resolves true when the device
   * acknowledged it (PUBACK), false when it is offline or did not acknowledge in time.
   */
  publish(
    device: DeviceIdentity,
    topic: string,
    payload: Buffer,
    opts?: { qos?: 0 | 1; timeoutMs?: number; retain?: boolean },
  ): Promise<boolean>
  /** Publishes QoS 0 to a full topic (a group topic): true once the broker took it. */
  publishTopic(topic: string, payload: Buffer): Promise<boolean>
}
