/**
 * The dry run of an alert rule being edited: over a device and a range picked here, POST /alert_rules/test tells
 * the windows in which the rule would have fired, drawn shaded over the chart of a data point's stored values
 * (GET /original_data, maxPoints = the chart's width) with the threshold the condition compares it to as a line.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { Chart, useBoxWidth, type ChartMarks, type SeriesData } from './chart.tsx'
import { serviceZone } from '../time.ts'
import { RANGES, wireSeconds } from './charts.tsx'
import { errorText } from './error-text.ts'
import { TableHead, ErrorNote } from './paged-list.tsx'

/** What the rule form sends (create, edit and the dry run alike). */
export interface RuleBody {
  ruleName: string
  productID: string
  condition: string | null
  [field: string]: unknown
}

/** One window in which the rule would have fired (endTime null: still open at the end of the range). */
interface Fired {
  startTime: string
  endTime: string | null
  alertTimes: number
}

interface Result {
  fired: Fired[]
  data: SeriesData
  span: [number, number]
  marks: ChartMarks
  title: string
}

const w = words(
  {
    dryRun: 'Dry run',
    device: 'Device',
    dataPoint: 'Data point',
    range: 'Range',
    run: 'Run dry run',
    fired: (n: number) => `The rule would have fired ${n} ${n === 1 ? 'time' : 'times'}.`,
    windows: 'Firings',
    open: 'still open',
    noDevices: 'The product has no devices.',
    findDevice: 'Find device',
  },
  {
    dryRun: '试运行',
    device: '设备',
    dataPoint: '功能点',
    range: '时间范围',
    run: '试运行',
    fired: (n: number) => `该规则将触发 ${n} 次。`,
    windows: '触发记录',
    open: '仍未恢复',
    noDevices: '该产品没有设备。',
    findDevice: '查找设备',
  },
)

/** The four ranges a dry run offers (at most a week of raw values). */
const DRY_RANGES = RANGES.slice(0, 4)

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')

/** The number a condition compares `point` with (`temp > 80`, `80 < temp`), if it does. */
export function thresholdOf(condition: string | null, point: string): number | null {
  if (!condition) return null
  const id = escape(point)
  const n = '(-?\\d+(?:\\.\\d+)?)'
  const m =
    new RegExp(`(?:^|[^\\w-])${id}\\s*(?:>=|<=|==|!=|>|<)\\s*${n}`).exec(condition) ??
    new RegExp(`${n}\\s*(?:>=|<=|==|!=|>|<)\\s*${id}(?![\\w-])`).exec(condition)
  return m ? Number(m[1]) : null
}

type DevicePick = { deviceID: string; deviceName: string }
type PointPick = { dataPointID: string; dataPointName: string }

/**
 * What a dry run may pick for a product: its numeric data points (the one the condition names first) and its
 * devices, the first 100 or those whose name holds `find` (read 200 ms after typing stops).
 */
function useChoices(
  product: string,
  condition: string | null,
  find: string,
  setError: (e: string) => void,
) {
  const [devices, setDevices] = useState<DevicePick[] | null>(null)
  const [points, setPoints] = useState<PointPick[]>([])
  const [deviceID, setDeviceID] = useState('')
  const [point, setPoint] = useState('')

  useEffect(() => {
    let stale = false
    api<{ items: PointPick[] }>(
      `/data_points?productID=${product}&pointDataType=1&_limit=100`,
    ).then(
      (p) => {
        if (stale) return
        setPoints(p.items)
        const named = p.items.find((x) => thresholdOf(condition, x.dataPointID) !== null)
        setPoint((named ?? p.items[0])?.dataPointID ?? '')
      },
      (e) => !stale && setError(errorText(e)),
    )
    return () => {
      stale = true
    }
  }, [product])

  useEffect(() => {
    let stale = false
    const q = find.trim() ? `&deviceName_like=${encodeURIComponent(find.trim())}` : ''
    const timer = setTimeout(
      () =>
        api<{ items: DevicePick[] }>(`/devices?productID=${product}&_limit=100${q}`).then(
          (d) => {
            if (stale) return
            setDevices(d.items)
            setDeviceID((cur) =>
              d.items.some((x) => x.deviceID === cur) ? cur : (d.items[0]?.deviceID ?? ''),
            )
          },
          (e) => !stale && setError(errorText(e)),
        ),
      find ? 200 : 0,
    )
    return () => {
      stale = true
      clearTimeout(timer)
    }
  }, [product, find])

  return { devices, points, deviceID, setDeviceID, point, setPoint }
}

/** Runs `rule` over [start, end] (epoch ms) for one device and data point: where it fired, over the values. */
async function dryRun(
  rule: RuleBody,
  pick: { deviceID: string; point: string; title: string },
  start: number,
  end: number,
  maxPoints: number,
  tz: string,
): Promise<Result> {
  const { deviceID, point } = pick
  const q = new URLSearchParams({
    deviceID,
    dataPointID: point,
    startTime: String(start),
    endTime: String(end),
    maxPoints: String(maxPoints),
  })
  const [fired, original] = await Promise.all([
    api<Fired[]>('/alert_rules/test', {
      method: 'POST',
      body: {
        ...rule,
        ruleName: rule.ruleName.trim() || undefined,
        deviceID,
        startTime: String(start),
        endTime: String(end),
      },
    }),
    api<Array<{ dataPointID: string; originalData: { time: string[]; value: unknown[] } }>>(
      `/original_data?${q.toString()}`,
    ),
  ])
  const o = original.find((x) => x.dataPointID === point)?.originalData
  return {
    fired,
    data: {
      time: (o?.time ?? []).map((x) => wireSeconds(x, tz)),
      value: (o?.value ?? []).map((v) => (v === null ? null : Number(v))),
    },
    span: [start / 1000, end / 1000],
    marks: {
      bands: fired.map((f) => [
        wireSeconds(f.startTime, tz),
        f.endTime === null ? null : wireSeconds(f.endTime, tz),
      ]),
      threshold: thresholdOf(rule.condition, point),
    },
    title: pick.title,
  }
}

/** The windows where the rule fired. */
function FiredTable({ fired }: { fired: Fired[] }) {
  const s = t()
  const ww = w()
  return (
    <table aria-label={ww.windows}>
      <TableHead columns={[s.startTime, s.endTime, s.times]} />
      <tbody>
        {fired.map((f) => (
          <tr key={f.startTime}>
            <td>{f.startTime}</td>
            <td>{f.endTime ?? ww.open}</td>
            <td>{f.alertTimes}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** The device (found by name), the data point, the range and Run. */
function Pickers(p: {
  choices: ReturnType<typeof useChoices>
  find: string
  setFind: (v: string) => void
  span: number | null
  busy: boolean
  onRange: (ms: number) => void
  onRun: () => void
}) {
  const { devices, points, deviceID, setDeviceID, point, setPoint } = p.choices
  const { find, setFind, span, busy, onRange, onRun } = p
  const ww = w()
  return (
    <div class="toolbar">
      <input
        type="search"
        aria-label={ww.findDevice}
        placeholder={ww.findDevice}
        value={find}
        onInput={(e) => setFind(e.currentTarget.value)}
      />
      <label>
        {ww.device}{' '}
        <select value={deviceID} onChange={(e) => setDeviceID(e.currentTarget.value)}>
          {(devices ?? []).map((d) => (
            <option key={d.deviceID} value={d.deviceID}>
              {d.deviceName}
            </option>
          ))}
        </select>
      </label>
      <label>
        {ww.dataPoint}{' '}
        <select value={point} onChange={(e) => setPoint(e.currentTarget.value)}>
          {points.map((p) => (
            <option key={p.dataPointID} value={p.dataPointID}>
              {p.dataPointName}
            </option>
          ))}
        </select>
      </label>
      <div role="group" aria-label={ww.range} class="ranges">
        {DRY_RANGES.map(([label, ms]) => (
          <button key={label} type="button" aria-pressed={span === ms} onClick={() => onRange(ms)}>
            {label}
          </button>
        ))}
      </div>
      <button type="button" disabled={busy || !deviceID || !point} onClick={onRun}>
        {ww.run}
      </button>
    </div>
  )
}

/** What a run found: how often the rule fired, the chart with its windows shaded, and the windows' table. */
function Outcome(p: {
  result: Result
  width: number
  tz: string
  onZoom: (from: number, to: number) => void
}) {
  const { result } = p
  return (
    <>
      <p role="status">{w().fired(result.fired.length)}</p>
      <Chart
        key={result.span.join()}
        title={result.title}
        data={result.data}
        span={result.span}
        marks={result.marks}
        width={p.width}
        tz={p.tz}
        onZoom={p.onZoom}
      />
      {result.fired.length > 0 && <FiredTable fired={result.fired} />}
    </>
  )
}

export function DryRun({ rule }: { rule: RuleBody }) {
  const [find, setFind] = useState('')
  // a range button's span up to now, or null after a range was dragged across the chart
  const [span, setSpan] = useState<number | null>(DRY_RANGES[0]![1])
  const [result, setResult] = useState<Result | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const product = encodeURIComponent(rule.productID)
  const { devices, points, deviceID, setDeviceID, point, setPoint } = useChoices(
    product,
    rule.condition,
    find,
    setError,
  )
  const tz = serviceZone()
  const [box, width] = useBoxWidth<HTMLElement>()

  /** Runs the rule over [start, end] (epoch ms). */
  const run = async (start: number, end: number) => {
    setBusy(true)
    setError(null)
    try {
      const title = points.find((x) => x.dataPointID === point)?.dataPointName ?? point
      setResult(await dryRun(rule, { deviceID, point, title }, start, end, width || 600, tz))
    } catch (e) {
      setResult(null)
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  const ww = w()
  return (
    <section class="dry-run" aria-labelledby="dry-run-h" ref={box}>
      <h3 id="dry-run-h">{ww.dryRun}</h3>
      {devices && devices.length === 0 && !find ? (
        <p>{ww.noDevices}</p>
      ) : (
        <Pickers
          choices={{ devices, points, deviceID, setDeviceID, point, setPoint }}
          find={find}
          setFind={setFind}
          span={span}
          busy={busy}
          onRange={(ms) => {
            setSpan(ms)
            const end = Date.now()
            if (result) void run(end - ms, end)
          }}
          onRun={() => {
            const end = Date.now()
            const ms = span ?? DRY_RANGES[0]![1]
            setSpan(ms)
            void run(end - ms, end)
          }}
        />
      )}
      <ErrorNote error={error} />
      {result && (
        <Outcome
          result={result}
          width={width}
          tz={tz}
          onZoom={(from, to) => {
            setSpan(null)
            void run(from * 1000, to * 1000)
          }}
        />
      )}
    </section>
  )
}
