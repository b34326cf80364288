import { METRIC_TABLE } from '../../store/fields/product-model.ts'
import { Metric, MetricListItem, MetricRecord as MetricWriteForm } from '../schemas/metrics.ts'
import { tableSerializer } from './shape.ts'

export const metricWire = tableSerializer(METRIC_TABLE, {
  detail: Metric,
  record: MetricWriteForm,
  list: MetricListItem,
})
