/**
 * What a record's own page (a device, a gateway) shares: the refusal when its read fails (a 404 is "not found"),
 * and its device's events, live.
 */
import { useEffect } from 'preact/hooks'
import { ApiError } from '../api/client.ts'
import { t } from '../i18n.ts'
import { deviceOf, onLive, type LiveEvent } from '../live.ts'

/** The text of a failed read of a record: "not found" for a 404, else the error. */
export const readError = (e: unknown) =>
  e instanceof ApiError && e.status === 404 ? t().notFound : String(e)

/** A record page whose record could not be read. */
export function NotFound({ error }: { error: string }) {
  return (
    <section>
      <h1>{t().notFound}</h1>
      <p role="alert">{error}</p>
    </section>
  )
}

/**
 * The live events of one device (`deviceID`, once known): its connection state as `onStatus(1 | 0)` on
 * device.online / device.offline, every other event of it to `onOther`.
 */
export function useDeviceEvents(
  deviceID: string | undefined,
  onStatus: (status: 0 | 1) => void,
  onOther?: (e: LiveEvent) => void,
) {
  useEffect(() => {
    if (!deviceID) return
    return onLive((e) => {
      if (deviceOf(e) !== deviceID) return
      if (e.type === 'device.online' || e.type === 'device.offline')
        onStatus(e.type === 'device.online' ? 1 : 0)
      else onOther?.(e)
    })
  }, [deviceID])
}
