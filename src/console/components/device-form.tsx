/**
 * The create and edit dialog of a device (Variant A's body): POST /devices or PUT /devices/{id}; the API's refusal
 * (its message and each field's error) is shown in role alert and the dialog stays open.
 */
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { api, type Device } from '../api/client.ts'
import { lang, t, words } from '../i18n.ts'
import { enEnums, zhEnums } from '../enum-labels.ts'
import { LinkPicker } from './link-picker.tsx'
import { ProductSelect } from './product-select.tsx'
import { DialogButtons, useModal } from './dialog.tsx'
import { errorText } from './error-text.ts'

/** A device of the list, with the fields the list page edits. */
export type DeviceRow = Device

export const fw = words(
  {
    createDevice: 'Create device',
    createGateway: 'Create gateway',
    editDevice: 'Edit device',
    deviceName: 'Device name',
    deviceType: 'Device type',
    terminal: 'Terminal',
    smartphone: 'Smartphone',
    upLink: 'Connects via',
    cloud: 'Cloud',
    gateway: 'Gateway',
    parentDevice: 'Parent device',
    gatewayKind: 'Gateway',
    gatewayProtocol: 'Gateway protocol',
    authType: 'Authentication',
    token: 'Token',
    certificate: 'Certificate',
    deviceIDOptional: 'Device ID (generated when empty)',
    description: 'Description',
    location: 'Location',
    manufacturer: 'Manufacturer',
    serialNumber: 'Serial number',
    softVersion: 'Software version',
    hardwareVersion: 'Hardware version',
    save: 'Save',
    cancel: 'Cancel',
  },
  {
    createDevice: '创建设备',
    createGateway: '创建网关',
    editDevice: '编辑设备',
    deviceName: '设备名称',
    deviceType: '设备类型',
    terminal: '终端',
    smartphone: '智能手机',
    upLink: '上联系统',
    cloud: '云',
    gateway: '网关',
    parentDevice: '父设备',
    gatewayKind: '网关',
    gatewayProtocol: '网关协议',
    authType: '认证方式',
    token: 'Token',
    certificate: '证书',
    deviceIDOptional: '设备 ID（留空自动生成）',
    description: '描述',
    location: '位置',
    manufacturer: '制造商',
    serialNumber: '序列号',
    softVersion: '软件版本',
    hardwareVersion: '硬件版本',
    save: '保存',
    cancel: '取消',
  },
)

/** The Device type option that makes a gateway (POST /gateways) rather than a device. */
const GATEWAY = 'gateway'

/** What a save answers: the record's id and name; `isGateway` when a gateway was made. */
export interface Saved {
  id: number
  deviceName: string
  isGateway?: boolean
}

/** The gateway protocols, labelled in the console's language. */
const gatewayProtocols = () => (lang.value === 'en' ? enEnums : zhEnums).gatewayProtocol

const DESCRIBED = [
  'description',
  'manufacturer',
  'serialNumber',
  'softVersion',
  'hardwareVersion',
] as const

/** The wire location as editable text; a JSON object typed back is sent as an object. */
const locationText = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v)
function locationValue(text: string): unknown {
  const s = text.trim()
  if (!s) return null
  if (s.startsWith('{')) {
    try {
      return JSON.parse(s) as unknown
    } catch {
      // plain text that happens to start with a brace
    }
  }
  return s
}

/** The form's fields as text: the device's when it is edited, a new device's defaults otherwise. */
function initialFields(d: DeviceRow | undefined): Record<string, string> {
  return {
    deviceName: d?.deviceName ?? '',
    productID: '',
    cloudProtocol: '',
    deviceType: '1',
    gatewayProtocol: '1',
    ...uplinkOf(d ?? {}),
    authType: String(d?.authType ?? 1),
    deviceID: '',
    location: locationText(d?.location),
    ...Object.fromEntries(DESCRIBED.map((k) => [k, d?.[k] ?? ''])),
  }
}

/** A new gateway's body (POST /gateways): its name, product, protocol, authentication and what was described. */
function gatewayBody(f: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    gatewayName: f.deviceName!.trim(),
    productID: f.productID,
    gatewayProtocol: Number(f.gatewayProtocol),
    authType: Number(f.authType),
  }
  for (const k of DESCRIBED) if (f[k]!.trim()) out[k] = f[k]!.trim()
  const location = locationValue(f.location!)
  if (location !== null) out.location = location
  if (f.deviceID!.trim()) out.deviceID = f.deviceID!.trim()
  return out
}

/** The request body of the form's fields: an edit sends every described field, a create only what was given. */
function bodyOf(f: Record<string, string>, editing: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { deviceName: f.deviceName!.trim() }
  for (const k of DESCRIBED) out[k] = f[k]!.trim() || null
  out.location = locationValue(f.location!)
  if (editing) return out
  for (const k of [...DESCRIBED, 'location']) if (out[k] === null) delete out[k]
  const terminal = f.deviceType === '1'
  Object.assign(out, {
    productID: f.productID,
    deviceType: Number(f.deviceType),
    upLinkSystem: terminal ? Number(f.upLinkSystem) : null,
    authType: Number(f.authType),
    // the product's: the API requires it and checks that it matches
    cloudProtocol: Number(f.cloudProtocol) || null,
  })
  if (terminal && f.upLinkSystem === '2') out.gateway = Number(f.link) || null
  if (terminal && f.upLinkSystem === '3') out.parentDevice = Number(f.link) || null
  if (f.deviceID!.trim()) out.deviceID = f.deviceID!.trim()
  return out
}

/** An edit's body: the described fields, and the uplink of a terminal when it changed. */
function editBody(d: DeviceRow, f: Record<string, string>): Record<string, unknown> {
  const out = bodyOf(f, true)
  const was = uplinkOf(d)
  const moved = f.upLinkSystem !== was.upLinkSystem || f.link !== was.link
  if (d.deviceType === 1 && 'upLinkSystem' in d && moved)
    Object.assign(out, uplinkBody(f.upLinkSystem!, f.link!))
  return out
}

/** What only a new device is asked for: its product, type, uplink, authentication and an optional deviceID. */
function CreateFields(p: {
  f: Record<string, string>
  setF: (f: Record<string, string>) => void
  set: (k: string) => (e: Event) => void
  text: (k: string, label: string) => JSX.Element
}) {
  const { f, setF, set, text } = p
  const s = fw()
  return (
    <>
      <ProductSelect
        label={t().product}
        value={f.productID!}
        onChange={(v, product) =>
          setF({ ...f, productID: v, cloudProtocol: String(product?.cloudProtocol ?? '') })
        }
      />
      <label>
        {s.deviceType}
        <select value={f.deviceType} onChange={set('deviceType')}>
          <option value="1">{s.terminal}</option>
          <option value="3">{s.smartphone}</option>
          <option value={GATEWAY}>{s.gatewayKind}</option>
        </select>
      </label>
      {f.deviceType === GATEWAY && (
        <label>
          {s.gatewayProtocol}
          <select value={f.gatewayProtocol} onChange={set('gatewayProtocol')}>
            {Object.entries(gatewayProtocols()).map(([code, label]) => (
              <option key={code} value={code}>
                {label}
              </option>
            ))}
          </select>
        </label>
      )}
      {f.deviceType === '1' && (
        <UplinkFields
          productID={f.productID!}
          upLinkSystem={f.upLinkSystem!}
          link={f.link!}
          onChange={(upLinkSystem, link) => setF({ ...f, upLinkSystem, link })}
        />
      )}
      <label>
        {s.authType}
        <select value={f.authType} onChange={set('authType')}>
          <option value="1">{s.token}</option>
          <option value="2">{s.certificate}</option>
        </select>
      </label>
      {text('deviceID', s.deviceIDOptional)}
    </>
  )
}

/**
 * How a terminal reaches the platform (upLinkSystem 1 cloud, 2 a gateway, 3 a parent device) and, for 2 and 3, the
 * gateway or parent device chosen by name (`link`: its record id, never typed). `self`: the device edited, which is
 * not offered as its own parent.
 */
export function UplinkFields(p: {
  productID: string
  upLinkSystem: string
  link: string
  self?: number
  onChange: (upLinkSystem: string, link: string) => void
}) {
  const s = fw()
  return (
    <>
      <label>
        {s.upLink}
        <select value={p.upLinkSystem} onChange={(e) => p.onChange(e.currentTarget.value, '')}>
          <option value="1">{s.cloud}</option>
          <option value="2">{s.gateway}</option>
          <option value="3">{s.parentDevice}</option>
        </select>
      </label>
      {p.upLinkSystem !== '1' && (
        <LinkPicker
          key={p.upLinkSystem}
          kind={p.upLinkSystem === '2' ? 'gateway' : 'device'}
          label={p.upLinkSystem === '2' ? s.gateway : s.parentDevice}
          productID={p.productID}
          value={p.link}
          {...(p.self === undefined ? {} : { exclude: p.self })}
          onChange={(link) => p.onChange(p.upLinkSystem, link)}
        />
      )}
    </>
  )
}

/** The uplink of a device record as the form holds it: upLinkSystem and the linked record id, as text. */
export function uplinkOf(d: {
  upLinkSystem?: number | null
  gateway?: number | null
  parentDevice?: number | null
}) {
  const up = String(d.upLinkSystem ?? 1)
  const link = up === '2' ? d.gateway : up === '3' ? d.parentDevice : null
  return { upLinkSystem: up, link: link == null ? '' : String(link) }
}

/** The body fields that set an uplink: upLinkSystem and its link, the other link null. */
export function uplinkBody(upLinkSystem: string, link: string): Record<string, unknown> {
  return {
    upLinkSystem: Number(upLinkSystem),
    gateway: upLinkSystem === '2' ? Number(link) || null : null,
    parentDevice: upLinkSystem === '3' ? Number(link) || null : null,
  }
}

/**
 * Sends the form's fields: a PUT of the device `d` edited, else a POST of a new device (or gateway); the record
 * answered, a gateway's with its name as `deviceName` and `isGateway: true`.
 */
async function saveDevice(d: DeviceRow | undefined, f: Record<string, string>): Promise<Saved> {
  if (!d && f.deviceType === GATEWAY) {
    const g = await api<{ id: number; gatewayName: string }>('/gateways', {
      method: 'POST',
      body: gatewayBody(f),
    })
    return { id: g.id, deviceName: g.gatewayName, isGateway: true }
  }
  return d
    ? api<{ id: number; deviceName: string }>(`/devices/${d.id}`, {
        method: 'PUT',
        body: editBody(d, f),
      })
    : api<{ id: number; deviceName: string }>('/devices', {
        method: 'POST',
        body: bodyOf(f, false),
      })
}

/** The dialog; `device` edits it, without one it creates. `onSaved` gets the record the API answered. */
export function DeviceForm(p: {
  device?: DeviceRow
  /** A new record starts as a gateway. */
  gateway?: boolean
  onSaved: (saved: Saved) => void
  onClose: () => void
}) {
  const d = p.device
  const ref = useModal()
  const [f, setF] = useState<Record<string, string>>(() => ({
    ...initialFields(d),
    ...(p.gateway ? { deviceType: GATEWAY } : {}),
  }))
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const set = (k: string) => (e: Event) =>
    setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value })

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    try {
      const saved = await saveDevice(d, f)
      ref.current?.close()
      p.onSaved(saved)
    } catch (err) {
      setError(errorText(err))
    } finally {
      setBusy(false)
    }
  }

  const s = fw()
  const title = d
    ? `${s.editDevice} ${d.deviceName}`
    : f.deviceType === GATEWAY
      ? s.createGateway
      : s.createDevice
  const text = (k: string, label: string, required = false) => (
    <label>
      {label}
      <input value={f[k]} required={required} onInput={set(k)} />
    </label>
  )
  return (
    <dialog ref={ref} aria-labelledby="device-form-title" onClose={p.onClose} class="device-form">
      <form onSubmit={(e) => void submit(e)}>
        <h2 id="device-form-title">{title}</h2>
        <div class="form-grid">
          {text('deviceName', s.deviceName, true)}
          {!d && <CreateFields f={f} setF={setF} set={set} text={text} />}
          {d?.deviceType === 1 && 'upLinkSystem' in d && (
            <UplinkFields
              productID={d.productID}
              upLinkSystem={f.upLinkSystem!}
              link={f.link!}
              self={d.id}
              onChange={(upLinkSystem, link) => setF({ ...f, upLinkSystem, link })}
            />
          )}
          {text('description', s.description)}
          {text('location', s.location)}
          {text('manufacturer', s.manufacturer)}
          {text('serialNumber', s.serialNumber)}
          {text('softVersion', s.softVersion)}
          {text('hardwareVersion', s.hardwareVersion)}
        </div>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <DialogButtons dialog={ref} busy={busy} save={s.save} cancel={s.cancel} />
      </form>
    </dialog>
  )
}
