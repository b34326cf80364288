import { z } from 'zod'
import { enumCode, intID, name, text, annotate, responseSchema } from './common.ts'
import { METRIC_TABLE } from '../../store/fields/product-model.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'
import { oneOf } from './data-points.ts'

/** Metric detail, with productName beside productID. */
export const Metric = responseSchema(METRIC_TABLE, [
  'id metricName metricType metricTypeLabel dataPointIntID dataPointName aggregateType',
  'aggregateTypeLabel aggregateData aggregateDataLabel aggregateInterval chartType chartTypeLabel expressions',
  'expressionsLabel isShow productID productName productItemIntID remark dataStreamIntID createUser',
  'createAt updateAt',
])

/** The metric record of write answers (without labels). */
export const MetricRecord = Metric.omit({
  metricTypeLabel: true,
  aggregateTypeLabel: true,
  aggregateDataLabel: true,
  chartTypeLabel: true,
})

/** The list form plus the product. */
export const MetricListItem = responseSchema(
  METRIC_TABLE,
  'id metricName metricType metricTypeLabel dataPointName productID productName',
)

/** Create body: the product comes from dataPointIntID; metricType defaults by the rules (src/rules/metrics.ts). */
export const MetricCreate = requestSchema(METRIC_TABLE, {
  metricName: name(50),
  dataPointIntID: intID,
  metricType: enumCode('metricType').optional(),
  expressions: z
    .string({ error: 'must be a string' })
    .max(1000, { error: 'at most 1000 characters' })
    .nullish(),
  expressionsLabel: text(1000),
  aggregateType: enumCode('aggregateType').nullish(),
  aggregateData: enumCode('aggregateData').nullish(),
  /** An aggregate metric's own window; metrics_data uses it when the request names no `interval`. */
  aggregateInterval: z
    .string({ error: 'must be a string' })
    .regex(/^([1-9]\d{0,3})(m|h|d|mo)$/, {
      error: 'must be a window like 5m, 15m, 1h, 6h, 1d or 1mo',
    })
    .nullish()
    .meta({
      description:
        "an aggregate metric's own window (<n>m, <n>h, <n>d or <n>mo); null: by the range (1m for an hour, 1h " +
        'for a day, 6h for a week, 1d for a month). A request with `interval` overrides it',
    }),
  chartType: enumCode('chartType').nullish(),
  isShow: oneOf([0, 1]).optional(),
  productItemIntID: intID.nullish(),
  remark: text(300),
  dataStreamIntID: intID.nullish(),
})
annotate(MetricCreate, {
  examples: [
    {
      metricName: 'Temperature in °F',
      dataPointIntID: 1,
      metricType: 1,
      expressions: 'value * 1.8 + 32',
      chartType: 1,
    },
  ],
})

export const MetricUpdate = MetricCreate.partial()

/** List filters: productID, metricName, metricType, dataPointIntID, dataPointName (store/fields). */
export const metricFilters = filterFields(METRIC_TABLE)

export type MetricCreate = z.infer<typeof MetricCreate>
export type MetricUpdate = z.infer<typeof MetricUpdate>
