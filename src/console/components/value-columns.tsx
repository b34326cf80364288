/**
 * The devices list's value columns: for the product the list is filtered by, the data points whose latest values
 * show as columns (with their units) and the firmware version, chosen in a `Columns` menu and kept per product in
 * this browser. The values of the page's devices are read in one call (`GET /devices_latest`) and follow the
 * stream's `telemetry`.
 */
import type { ComponentChild } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { words } from '../i18n.ts'
import { onLive, type Telemetry } from '../live.ts'

const cw = words(
  {
    columns: 'Columns',
    chooseColumns: 'Columns shown for this product',
    softVersion: 'Firmware version',
    values: 'Latest values',
  },
  {
    columns: '列',
    chooseColumns: '该产品显示的列',
    softVersion: '固件版本',
    values: '最新值',
  },
)

/** A data point of the product, as the chooser offers it. */
interface Point {
  dataPointID: string
  dataPointName: string
  unitSymbol: string | null
  unitName: string | null
  pointDataType: number
}

/** What is shown for a product: data point ids, and whether the firmware version is. */
export interface Chosen {
  points: string[]
  softVersion: boolean
}

const KEY = (productID: string) => `devicecloud.columns.${productID}`
const NONE: Chosen = { points: [], softVersion: false }

function load(productID: string): Chosen {
  try {
    const v = JSON.parse(localStorage.getItem(KEY(productID)) ?? 'null') as Chosen | null
    return v && Array.isArray(v.points)
      ? { points: v.points.map(String), softVersion: !!v.softVersion }
      : NONE
  } catch {
    return NONE
  }
}

/** The product's data points and the columns chosen for it (kept in localStorage per product). */
export function useColumns(productID: string) {
  const [points, setPoints] = useState<Point[]>([])
  const [chosen, setChosenState] = useState<Chosen>(() => (productID ? load(productID) : NONE))
  useEffect(() => {
    setChosenState(productID ? load(productID) : NONE)
    if (!productID) return setPoints([])
    let stale = false
    const q = new URLSearchParams({ productID, _limit: '100' })
    api<Page<Point>>(`/data_points?${q}`).then(
      (p) => !stale && setPoints(p.items),
      () => undefined,
    )
    return () => {
      stale = true
    }
  }, [productID])
  const setChosen = (c: Chosen) => {
    setChosenState(c)
    if (productID) localStorage.setItem(KEY(productID), JSON.stringify(c))
  }
  // a data point deleted since it was chosen is not shown
  const shown = points.filter((p) => chosen.points.includes(p.dataPointID))
  return { points, chosen, setChosen, shown }
}

/** `Columns`: a menu of checkboxes (firmware version, each data point with its unit). */
export function ColumnsChooser(p: { cols: ReturnType<typeof useColumns> }) {
  const { points, chosen, setChosen } = p.cols
  const s = cw()
  const toggle = (id: string, on: boolean) =>
    setChosen({
      ...chosen,
      points: on ? [...chosen.points, id] : chosen.points.filter((x) => x !== id),
    })
  return (
    <details class="columns-chooser">
      <summary>{s.columns}</summary>
      <fieldset>
        <legend>{s.chooseColumns}</legend>
        <label>
          <input
            type="checkbox"
            checked={chosen.softVersion}
            onChange={(e) => setChosen({ ...chosen, softVersion: e.currentTarget.checked })}
          />{' '}
          {s.softVersion}
        </label>
        {points.map((x) => (
          <label key={x.dataPointID}>
            <input
              type="checkbox"
              checked={chosen.points.includes(x.dataPointID)}
              onChange={(e) => toggle(x.dataPointID, e.currentTarget.checked)}
            />{' '}
            {x.dataPointName}
            {unitOf(x) ? ` (${unitOf(x)})` : ''}
          </label>
        ))}
      </fieldset>
    </details>
  )
}

const unitOf = (p: Point) => p.unitSymbol || p.unitName || ''

type Values = Record<string, Record<string, unknown>>

/** The latest values of `deviceIDs` (read when some data point is shown), following the stream's telemetry. */
export function useLatestValues(deviceIDs: string[], wanted: boolean): Values {
  const [values, setValues] = useState<Values>({})
  const key = deviceIDs.join(',')
  useEffect(() => {
    if (!wanted || !deviceIDs.length) return setValues({})
    let stale = false
    const q = new URLSearchParams({ deviceIDs: key })
    api<{ devices: Record<string, Array<{ dataPointID: string; value: unknown }>> }>(
      `/devices_latest?${q}`,
    ).then(
      (r) =>
        !stale &&
        setValues(
          Object.fromEntries(
            Object.entries(r.devices).map(([id, rows]) => [
              id,
              Object.fromEntries(rows.map((v) => [v.dataPointID, v.value])),
            ]),
          ),
        ),
      () => undefined,
    )
    const off = onLive((e) => {
      if (e.type !== 'telemetry') return
      const tm = e.data as Telemetry
      if (!deviceIDs.includes(tm.deviceID)) return
      setValues((v) => ({ ...v, [tm.deviceID]: { ...v[tm.deviceID], ...tm.values } }))
    })
    return () => {
      stale = true
      off()
    }
  }, [key, wanted])
  return values
}

/** A value as a cell shows it: with the data point's unit, `—` when there is none. */
function cellText(v: unknown, unit: string): string {
  if (v === null || v === undefined) return '—'
  const text = typeof v === 'string' ? v : JSON.stringify(v)
  return unit ? `${text} ${unit}` : text
}

/** The extra columns of the devices table: their headers and each row's cells. */
export function valueColumns(
  cols: ReturnType<typeof useColumns>,
  values: Values,
): Array<{
  label: string
  cell: (d: { deviceID: string; softVersion?: string | null }) => ComponentChild
}> {
  const out: Array<{
    label: string
    cell: (d: { deviceID: string; softVersion?: string | null }) => ComponentChild
  }> = []
  if (cols.chosen.softVersion)
    out.push({ label: cw().softVersion, cell: (d) => d.softVersion || '—' })
  for (const p of cols.shown)
    out.push({
      label: unitOf(p) ? `${p.dataPointName} (${unitOf(p)})` : p.dataPointName,
      cell: (d) => (
        <span class="num">{cellText(values[d.deviceID]?.[p.dataPointID], unitOf(p))}</span>
      ),
    })
  return out
}

/** The chooser's state for `productID` ('' : none) and the columns it adds for the devices `deviceIDs`. */
export function useValueColumns(productID: string, deviceIDs: string[]) {
  const cols = useColumns(productID)
  const values = useLatestValues(deviceIDs, cols.shown.length > 0)
  return { cols, extra: valueColumns(cols, values) }
}
