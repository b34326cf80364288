import { METRIC_TABLE, type MetricRecord } from '../../store/fields/product-model.ts'
import { Metric, MetricListItem, MetricRecord as MetricWriteForm } from '../schemas/metrics.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const metricWire = recordSerializer<MetricRecord>()(
  { detail: Metric, record: MetricWriteForm, list: MetricListItem },
  wireSpecOf(METRIC_TABLE),
)
