/**
 * The product model of one product as regions of its page: data points, data streams, metrics and app templates,
 * each listed through the API filtered by the product, with the create and edit fields the API takes.
 */
import { ModelSection } from '../components/model-section.tsx'
import type { Field } from '../components/model-form.tsx'
import { labelOf, optionsOf, pw } from './product-words.ts'
import type { PointItemWire } from '../api/wire.ts'
import type { StreamItemWire } from '../api/wire.ts'
import type { MetricItemWire } from '../api/wire.ts'
import type { TemplateWire } from '../api/wire.ts'

/** The product's data points and streams the forms offer (id and name). */
export interface Choices {
  points: Array<{ id: number; dataPointName: string; dataPointID: string }>
  streams: Array<{ id: number; streamName: string }>
}

interface Props {
  product: { id: number; productID: string; cloudProtocol?: number | null }
  choices: Choices
  canWrite: boolean
  onChanged: () => void
}

type PointRow = PointItemWire

type StreamRow = StreamItemWire

type MetricRow = MetricItemWire

type TemplateRow = TemplateWire

const pointOptions = (c: Choices): Array<[string, string]> =>
  c.points.map((x) => [String(x.id), `${x.dataPointName} (${x.dataPointID})`])

const dash = (s: string | null | undefined) => s || '—'

/** Point data types only a Modbus product (cloudProtocol 7) may use: the API refuses them for the others. */
const MODBUS_ONLY = new Set(['21', '22', '23', '24', '25'])

/** The data types a product's protocol takes. */
const pointTypesOf = (cloudProtocol: number | null | undefined) =>
  optionsOf('pointDataType').filter(([code]) => cloudProtocol === 7 || !MODBUS_ONLY.has(code))

export function DataPointsSection(p: Props) {
  const w = pw()
  const fields: Field[] = [
    { key: 'dataPointName', label: w.dataPointName, required: true },
    { key: 'dataPointID', label: w.dataPointID, required: true },
    {
      key: 'pointDataType',
      label: w.pointDataType,
      kind: 'select',
      required: true,
      options: pointTypesOf(p.product.cloudProtocol),
    },
    {
      key: 'dataTransType',
      label: w.dataTransType,
      kind: 'select',
      required: true,
      options: optionsOf('dataTransType'),
    },
    { key: 'unitName', label: w.unitName },
    { key: 'unitSymbol', label: w.unitSymbol },
    { key: 'lowerLimit', label: w.lowerLimit, kind: 'number' },
    { key: 'upperLimit', label: w.upperLimit, kind: 'number' },
    { key: 'dataStep', label: w.dataStep, kind: 'number' },
    {
      key: 'locationType',
      label: w.locationType,
      kind: 'select',
      options: optionsOf('locationType'),
    },
    { key: 'enum', label: w.enumValues, kind: 'json' },
    { key: 'detail', label: w.detail },
  ]
  return (
    <ModelSection<PointRow>
      id="points"
      title={w.dataPoints}
      one={w.dataPoint}
      path="/data_points"
      filters={{ productID: p.product.productID }}
      columns={[
        [w.dataPointName, (r) => r.dataPointName],
        [w.dataPointID, (r) => <span class="mono">{r.dataPointID}</span>],
        [w.pointDataType, (r) => labelOf('pointDataType', r.pointDataType, r.pointDataTypeLabel)],
        [w.dataTransType, (r) => labelOf('dataTransType', r.dataTransType, r.dataTransTypeLabel)],
        [w.unit, (r) => dash(r.unitSymbol ?? r.unitName)],
      ]}
      nameOf={(r) => r.dataPointName}
      fields={fields}
      extra={{ productIntID: p.product.id }}
      canWrite={p.canWrite}
      onChanged={p.onChanged}
    />
  )
}

export function DataStreamsSection(p: Props) {
  const w = pw()
  const fields: Field[] = [
    { key: 'streamName', label: w.streamName, required: true },
    {
      key: 'streamType',
      label: w.streamType,
      kind: 'select',
      required: true,
      options: optionsOf('streamType'),
    },
    {
      key: 'streamDataType',
      label: w.streamDataType,
      kind: 'select',
      required: true,
      options: optionsOf('streamDataType'),
    },
    { key: 'topic', label: w.topic, required: true },
    { key: 'dataPoints', label: w.streamPoints, kind: 'checks', options: pointOptions(p.choices) },
    { key: 'detail', label: w.detail },
  ]
  return (
    <ModelSection<StreamRow>
      id="streams"
      title={w.dataStreams}
      one={w.dataStream}
      path="/data_streams"
      filters={{ productID: p.product.productID }}
      columns={[
        [w.streamName, (r) => r.streamName],
        [w.topic, (r) => <span class="mono">{r.topic}</span>],
        [w.streamType, (r) => labelOf('streamType', r.streamType, r.streamTypeLabel)],
        [
          w.streamDataType,
          (r) => labelOf('streamDataType', r.streamDataType, r.streamDataTypeLabel),
        ],
      ]}
      nameOf={(r) => r.streamName}
      fields={fields}
      extra={{ productID: p.product.productID }}
      canWrite={p.canWrite}
      onChanged={p.onChanged}
    />
  )
}

export function MetricsSection(p: Props) {
  const w = pw()
  const formula = (v: Record<string, string>) => v.metricType === '1' || v.aggregateData === '1'
  const aggregate = (v: Record<string, string>) => v.metricType === '2'
  const fields: Field[] = [
    { key: 'metricName', label: w.metricName, required: true },
    {
      key: 'dataPointIntID',
      label: w.metricDataPoint,
      kind: 'select',
      required: true,
      options: pointOptions(p.choices),
    },
    {
      key: 'metricType',
      label: w.metricType,
      kind: 'select',
      required: true,
      options: optionsOf('metricType'),
    },
    {
      key: 'aggregateType',
      label: w.aggregateType,
      kind: 'select',
      required: true,
      options: optionsOf('aggregateType'),
      when: aggregate,
    },
    {
      key: 'aggregateData',
      label: w.aggregateData,
      kind: 'select',
      options: optionsOf('aggregateData'),
      when: aggregate,
    },
    {
      key: 'aggregateInterval',
      label: w.aggregateInterval,
      placeholder: w.windowHint,
      when: aggregate,
    },
    { key: 'expressions', label: w.expressions, when: formula },
    {
      key: 'chartType',
      label: w.chartType,
      kind: 'select',
      options: optionsOf('chartType'),
      initial: '1',
    },
    { key: 'isShow', label: w.isShow, kind: 'check' },
    { key: 'remark', label: w.remark },
  ]
  return (
    <ModelSection<MetricRow>
      id="metrics"
      title={w.metrics}
      one={w.metric}
      path="/metrics"
      filters={{ productID: p.product.productID }}
      columns={[
        [w.metricName, (r) => r.metricName],
        [w.metricType, (r) => labelOf('metricType', r.metricType, r.metricTypeLabel)],
        [w.metricDataPoint, (r) => r.dataPointName],
      ]}
      nameOf={(r) => r.metricName}
      fields={fields}
      extra={{}}
      canWrite={p.canWrite}
      onChanged={p.onChanged}
    />
  )
}

export function AppTemplatesSection(p: Props) {
  const w = pw()
  const fields: Field[] = [
    { key: 'templateName', label: w.templateName, required: true },
    {
      key: 'templateType',
      label: w.templateType,
      kind: 'select',
      required: true,
      options: optionsOf('templateType'),
    },
    {
      key: 'dataPointIntID',
      label: w.templateDataPoint,
      kind: 'select',
      options: pointOptions(p.choices),
    },
    {
      key: 'dataStreamIntID',
      label: w.templateStream,
      kind: 'select',
      options: p.choices.streams.map((s) => [String(s.id), s.streamName]),
    },
    { key: 'topic', label: w.topic },
    {
      key: 'dataTransType',
      label: w.dataTransType,
      kind: 'select',
      options: optionsOf('dataTransType'),
    },
  ]
  return (
    <ModelSection<TemplateRow>
      id="templates"
      title={w.appTemplates}
      one={w.appTemplate}
      path="/app_templates"
      filters={{ productID: p.product.productID }}
      columns={[
        [w.templateName, (r) => r.templateName],
        [w.templateType, (r) => labelOf('templateType', r.templateType, r.templateTypeLabel)],
        [w.templateDataPoint, (r) => dash(r.dataPointName)],
        [w.topic, (r) => (r.topic ? <span class="mono">{r.topic}</span> : '—')],
      ]}
      nameOf={(r) => r.templateName}
      fields={fields}
      extra={{ productID: p.product.productID }}
      canWrite={p.canWrite}
      onChanged={p.onChanged}
    />
  )
}
