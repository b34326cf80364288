import { DataPoint, DataPointListItem } from '../schemas/data-points.ts'
import { createSerializer } from './shape.ts'

export const dataPointWire = createSerializer(
  { detail: DataPoint, list: DataPointListItem },
  {
    labels: { pointDataType: 'pointDataType', dataTransType: 'dataTransType' },
    times: ['createAt', 'updateAt'],
    json: ['enum'],
  },
)
