/**
 * The dialog that rolls a package out (POST /firmware_rollouts): the target chosen by name (a group of the
 * package's product, or the whole product), optionally only the devices running some versions (the product's
 * versions from GET /products/{id}/soft_versions), the pace (devices a minute, an optional ramp-up), the abort
 * threshold, the timeout per device and the retries, with the API's defaults. The API's refusal of a field is shown
 * beside it; the dialog stays open and keeps what was typed.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import type {
  FirmwareWire,
  GroupItemWire,
  ProductItemWire,
  RolloutCreateBody,
  RolloutWire,
} from '../api/wire.ts'
import { useModal } from './dialog.tsx'
import { FieldError, invalidAttrs, useSubmit, type Refusal } from './field-errors.tsx'
import { fww } from './firmware-words.ts'
import { ErrorNote } from './paged-list.tsx'

/** GET /products/{id}/soft_versions: the versions the product's devices run, with their counts. */
export interface SoftVersion {
  softVersion: string | null
  count: number
}

/** The form as typed: numbers as their text; `target` is '' (none chosen), 'product' or a groupID. */
interface Typed {
  target: string
  fromVersions: string[]
  ratePerMinute: string
  ramp: boolean
  startPerMinute: string
  factor: string
  every: string
  abortFailedPercent: string
  abortMinFinished: string
  timeoutMinutes: string
  retries: string
}

/** The API's defaults (docs/firmware.md), and a ramp-up's starting values. */
const DEFAULTS: Typed = {
  target: '',
  fromVersions: [],
  ratePerMinute: '100',
  ramp: false,
  startPerMinute: '10',
  factor: '2',
  every: '20',
  abortFailedPercent: '',
  abortMinFinished: '10',
  timeoutMinutes: '60',
  retries: '0',
}

/** The request's fields the API may refuse, each shown beside its input. */
const FIELDS = [
  'target',
  'groupID',
  'productWide',
  'fromVersions',
  'ratePerMinute',
  'rampUp.startPerMinute',
  'rampUp.factor',
  'rampUp.every',
  'rampUp',
  'abortFailedPercent',
  'abortMinFinished',
  'timeoutMinutes',
  'retries',
] as const
const FORM = 'rollout-form'

/** A number typed (null when blank: the API says what it wants). */
const num = (s: string) => (s.trim() === '' ? null : Number(s))

/** The request of the typed form for package `firmwareID`. */
function bodyOf(firmwareID: string, f: Typed): RolloutCreateBody {
  const body: Record<string, unknown> = {
    firmwareID,
    ratePerMinute: num(f.ratePerMinute),
    timeoutMinutes: num(f.timeoutMinutes),
    retries: num(f.retries),
  }
  if (f.target === 'product') body.productWide = true
  else if (f.target) body.groupID = f.target
  if (f.fromVersions.length) body.fromVersions = f.fromVersions
  if (f.ramp)
    body.rampUp = {
      startPerMinute: num(f.startPerMinute),
      factor: num(f.factor),
      every: num(f.every),
    }
  if (f.abortFailedPercent.trim()) {
    body.abortFailedPercent = num(f.abortFailedPercent)
    body.abortMinFinished = num(f.abortMinFinished)
  }
  // numbers the API checks itself: a blank one is sent as null and refused beside its field
  return body as RolloutCreateBody
}

/** What the form offers for the package's product: its groups, its device count and the versions its devices run. */
function useChoices(productIntID: number, productID: string) {
  const [groups, setGroups] = useState<GroupItemWire[]>([])
  const [deviceCount, setDeviceCount] = useState<number | null>(null)
  const [versions, setVersions] = useState<SoftVersion[]>([])
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let stale = false
    const q = new URLSearchParams({ productID, _limit: '1000', _sort: 'groupName' })
    Promise.all([
      api<Page<GroupItemWire>>(`/groups?${q}`),
      api<ProductItemWire>(`/products/${productIntID}`),
      api<SoftVersion[]>(`/products/${productIntID}/soft_versions`),
    ]).then(
      ([g, p, v]) => {
        if (stale) return
        setGroups(g.items)
        setDeviceCount(p.deviceCount)
        setVersions(v.filter((x) => x.softVersion !== null))
      },
      (e: Error) => !stale && setError(e.message),
    )
    return () => {
      stale = true
    }
  }, [productIntID, productID])
  return { groups, deviceCount, versions, error }
}

/** A number field with its label and its error. */
function NumberField(p: {
  name: string
  label: string
  value: string
  refusal: Refusal | null
  onInput: (v: string) => void
  step?: string
  placeholder?: string
}) {
  return (
    <div class="field">
      <label>
        {p.label}
        <input
          type="number"
          step={p.step ?? '1'}
          placeholder={p.placeholder}
          value={p.value}
          onInput={(e) => p.onInput(e.currentTarget.value)}
          {...invalidAttrs(FORM, p.refusal, p.name)}
        />
      </label>
      <FieldError form={FORM} refusal={p.refusal} name={p.name} />
    </div>
  )
}

/** The target select: the whole product or one of its groups, by name. */
function TargetField(p: {
  f: Typed
  set: (patch: Partial<Typed>) => void
  choices: ReturnType<typeof useChoices>
  refusal: Refusal | null
}) {
  const w = fww()
  const { groups, deviceCount } = p.choices
  // the API names a target refusal `target` (none, several, no device) or the field it sent
  const name = ['target', 'groupID', 'productWide'].find((k) => p.refusal?.fields[k]) ?? 'target'
  return (
    <div class="field wide">
      <label>
        {w.target}
        <select
          required
          value={p.f.target}
          onChange={(e) => p.set({ target: e.currentTarget.value })}
          {...invalidAttrs(FORM, p.refusal, name)}
        >
          <option value="">{w.chooseTarget}</option>
          {groups.map((g) => (
            <option key={g.groupID} value={g.groupID}>
              {w.groupOption(g.groupName, g.deviceCount)}
            </option>
          ))}
          <option value="product">{w.wholeProduct(deviceCount ?? 0)}</option>
        </select>
      </label>
      <FieldError form={FORM} refusal={p.refusal} name={name} />
    </div>
  )
}

/** The product's versions as checkboxes: ticked ones limit the rollout to the devices running them. */
function FromVersions(p: {
  f: Typed
  set: (patch: Partial<Typed>) => void
  versions: SoftVersion[]
  refusal: Refusal | null
}) {
  const w = fww()
  const toggle = (v: string, on: boolean) =>
    p.set({
      fromVersions: on ? [...p.f.fromVersions, v] : p.f.fromVersions.filter((x) => x !== v),
    })
  return (
    <fieldset class="wide">
      <legend>{w.fromVersions}</legend>
      {p.versions.length === 0 && <p class="muted">{w.noVersions}</p>}
      {p.versions.map((v) => (
        <label key={v.softVersion} class="check">
          <input
            type="checkbox"
            checked={p.f.fromVersions.includes(v.softVersion!)}
            onChange={(e) => toggle(v.softVersion!, e.currentTarget.checked)}
          />{' '}
          {w.versionCount(v.softVersion!, v.count)}
        </label>
      ))}
      <FieldError form={FORM} refusal={p.refusal} name="fromVersions" />
    </fieldset>
  )
}

/** The pace: devices a minute and the optional ramp-up. */
function PaceFields(p: {
  f: Typed
  set: (patch: Partial<Typed>) => void
  refusal: Refusal | null
}) {
  const w = fww()
  const { f, set, refusal } = p
  return (
    <>
      <NumberField
        name="ratePerMinute"
        label={w.ratePerMinute}
        value={f.ratePerMinute}
        refusal={refusal}
        onInput={(v) => set({ ratePerMinute: v })}
      />
      <label class="check wide">
        <input
          type="checkbox"
          checked={f.ramp}
          onChange={(e) => set({ ramp: e.currentTarget.checked })}
        />{' '}
        {w.rampUp}
      </label>
      {f.ramp && (
        <>
          <NumberField
            name="rampUp.startPerMinute"
            label={w.startPerMinute}
            value={f.startPerMinute}
            refusal={refusal}
            onInput={(v) => set({ startPerMinute: v })}
          />
          <NumberField
            name="rampUp.factor"
            label={w.factor}
            step="0.1"
            value={f.factor}
            refusal={refusal}
            onInput={(v) => set({ factor: v })}
          />
          <NumberField
            name="rampUp.every"
            label={w.every}
            value={f.every}
            refusal={refusal}
            onInput={(v) => set({ every: v })}
          />
          <FieldError form={FORM} refusal={refusal} name="rampUp" />
        </>
      )}
    </>
  )
}

/** The limits: the abort threshold, the timeout per device and the retries. */
function LimitFields(p: {
  f: Typed
  set: (patch: Partial<Typed>) => void
  refusal: Refusal | null
}) {
  const w = fww()
  const { f, set, refusal } = p
  return (
    <>
      <NumberField
        name="abortFailedPercent"
        label={w.abortFailedPercent}
        placeholder={w.neverShort}
        value={f.abortFailedPercent}
        refusal={refusal}
        onInput={(v) => set({ abortFailedPercent: v })}
      />
      {f.abortFailedPercent.trim() !== '' && (
        <NumberField
          name="abortMinFinished"
          label={w.abortMinFinished}
          value={f.abortMinFinished}
          refusal={refusal}
          onInput={(v) => set({ abortMinFinished: v })}
        />
      )}
      <NumberField
        name="timeoutMinutes"
        label={w.timeoutMinutes}
        value={f.timeoutMinutes}
        refusal={refusal}
        onInput={(v) => set({ timeoutMinutes: v })}
      />
      <NumberField
        name="retries"
        label={w.retries}
        value={f.retries}
        refusal={refusal}
        onInput={(v) => set({ retries: v })}
      />
    </>
  )
}

/** The dialog for package `firmware`; `onCreated` gets the rollout the API answered. */
export function RolloutForm(p: {
  firmware: FirmwareWire
  onCreated: (r: RolloutWire) => void
  onClose: () => void
}) {
  const w = fww()
  const fw = p.firmware
  const ref = useModal()
  const choices = useChoices(fw.productIntID, fw.productID)
  const [f, setF] = useState<Typed>(DEFAULTS)
  const { refusal, busy, submit: submitting } = useSubmit(FIELDS)
  const set = (patch: Partial<Typed>) => setF({ ...f, ...patch })

  const submit = async (ev: Event) => {
    ev.preventDefault()
    await submitting(async () => {
      const created = await api<RolloutWire>('/firmware_rollouts', {
        method: 'POST',
        body: bodyOf(fw.firmwareID, f),
      })
      ref.current?.close()
      p.onCreated(created)
    })
  }

  const title = w.newRollout(fw.version, fw.productName)
  return (
    <dialog ref={ref} aria-labelledby="rollout-form-title" onClose={p.onClose} class="fw-dialog">
      <form class="fw-form" onSubmit={(e) => void submit(e)}>
        <h2 id="rollout-form-title" class="wide">
          {title}
        </h2>
        <div class="wide">
          <ErrorNote error={choices.error} />
        </div>
        <TargetField f={f} set={set} choices={choices} refusal={refusal} />
        <FromVersions f={f} set={set} versions={choices.versions} refusal={refusal} />
        <PaceFields f={f} set={set} refusal={refusal} />
        <LimitFields f={f} set={set} refusal={refusal} />
        <div class="wide">
          <ErrorNote error={refusal?.message ?? null} />
        </div>
        <div class="buttons wide">
          <button type="submit" disabled={busy}>
            {w.start}
          </button>
          <button type="button" class="secondary" onClick={() => ref.current?.close()}>
            {w.cancel}
          </button>
        </div>
      </form>
    </dialog>
  )
}
