import { z } from 'zod'
import { Metric } from './metrics.ts'

/** The range parameters of telemetry queries (query/range.ts resolves them). */
const rangeParams = {
  deviceID: z
    .string({ error: 'required' })
    .min(1, { error: 'required' })
    .max(100, { error: 'at most 100 characters' }),
  time_unit: z.string().optional(),
  startTime: z.string().optional(),
  endTime: z.string().optional(),
  maxPoints: z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(2, { error: 'at least 2' })
    .max(1_000_000, { error: 'at most 1000000' })
    .optional(),
}

export const OriginalDataQuery = z.object({
  ...rangeParams,
  dataPointID: z
    .string()
    .regex(/^[\w,-]*$/, { error: 'data point ids separated by commas' })
    .max(10_000)
    .optional(),
  format: z.enum(['json', 'csv', 'ndjson'], { error: 'must be json, csv or ndjson' }).optional(),
  /** Accepted and ignored. */
  metricType: z.string().optional(),
})

export const MetricsDataQuery = z.object({
  ...rangeParams,
  metricType: z
    .enum(['1', '2'], { error: 'must be 1 (formula) or 2 (aggregate)' })
    .transform(Number)
    .optional(),
  interval: z.string().optional(),
})

const TelemetryValue = z.union([z.number(), z.string(), z.boolean()])

/** What served the values: raw values or a rollup tier (docs/retention.md). */
const Resolution = z.enum(['raw', '1m', '1h', '1d']).meta({
  description:
    'what served these values: raw values, or the coarsest rollup tier read (1m, 1h, 1d minute/hour/day windows)',
})

/** The original_data answer, one entry per data point (dataPointID added beside dataPointIntID). */
export const OriginalData = z.array(
  z.object({
    dataPointIntID: z.number().int(),
    dataPointID: z.string(),
    dataPointName: z.string(),
    originalData: z.object({
      time: z.array(z.string()),
      value: z.array(TelemetryValue),
      resolution: Resolution,
    }),
  }),
)

/** The metrics_data answer, metric records with metricData. */
export const MetricsData = z.array(
  Metric.extend({
    metricData: z.object({
      time: z.array(z.string()),
      value: z.array(z.number()),
      resolution: Resolution,
      error: z
        .string()
        .optional()
        .meta({
          description:
            'why this metric could not be computed: its formula, or its own window over this range (its arrays are ' +
            'then empty)',
        }),
      interval: z
        .string()
        .optional()
        .meta({
          description:
            "an aggregate metric's window: the request's interval, else the metric's aggregateInterval, else the " +
            "range's default",
        }),
    }),
  }),
)

/** `GET /group_data`: the group by groupID and/or groupIntID, one data point, a range and a window. */
export const GroupDataQuery = z
  .object({
    groupID: z.string().min(1, { error: 'required' }).max(64).optional(),
    groupIntID: z.coerce
      .number({ error: 'must be an integer id' })
      .int({ error: 'must be an integer id' })
      .positive({ error: 'must be an integer id' })
      .optional(),
    dataPointID: z
      .string({ error: 'required' })
      .min(1, { error: 'required' })
      .max(100, { error: 'at most 100 characters' }),
    time_unit: rangeParams.time_unit,
    startTime: rangeParams.startTime,
    endTime: rangeParams.endTime,
    interval: z.string().optional().meta({
      description:
        'the window: <n>m, <n>h, <n>d or <n>mo (1m, 15m, 1h, 6h, 1d, 1mo ...); default by the range as metrics_data',
    }),
  })
  .refine((q) => q.groupID !== undefined || q.groupIntID !== undefined, {
    error: 'groupID or groupIntID is required',
    path: ['groupID'],
  })

const GroupPoint = z.object({ time: z.string(), value: z.number() })

/** One member's series: the mean of its values per window. */
const GroupMemberSeries = z.object({
  deviceIntID: z.number().int(),
  deviceID: z.string(),
  deviceName: z.string(),
  points: z.array(GroupPoint).meta({
    description:
      'the mean of each window holding values, time ascending (empty: no values in the range)',
  }),
})

/** The group's own window: every member's values together. */
const GroupWindow = z.object({
  time: z.string(),
  min: z.number(),
  avg: z.number().meta({ description: 'sum / count: every value weighs the same' }),
  max: z.number(),
  count: z.number().int().meta({ description: 'how many values of all members the window holds' }),
})

/** The group_data answer. */
export const GroupData = z.object({
  groupIntID: z.number().int(),
  groupID: z.string(),
  groupName: z.string(),
  dataPointIntID: z.number().int(),
  dataPointID: z.string(),
  dataPointName: z.string(),
  unitName: z.string().nullable(),
  unitSymbol: z.string().nullable(),
  interval: z.string().meta({ description: 'the window used' }),
  deviceCount: z.number().int().meta({ description: "the group's members" }),
  truncated: z.boolean().meta({
    description:
      'true when the group has more members than `series` shows (the first 20 by deviceName)',
  }),
  resolution: Resolution,
  series: z.array(GroupMemberSeries),
  group: z.array(GroupWindow),
})
