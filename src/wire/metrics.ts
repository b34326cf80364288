import { Metric, MetricListItem, MetricRecord } from '../schemas/metrics.ts'
import { createSerializer } from './shape.ts'

export const metricWire = createSerializer(
  { detail: Metric, record: MetricRecord, list: MetricListItem },
  {
    labels: {
      metricType: 'metricType',
      aggregateType: 'aggregateType',
      aggregateData: 'aggregateData',
      chartType: 'chartType',
    },
    times: ['createAt', 'updateAt'],
  },
)
