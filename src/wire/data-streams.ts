import { DataStream, DataStreamListItem } from '../schemas/data-streams.ts'
import { createSerializer } from './shape.ts'

export const dataStreamWire = createSerializer(
  { detail: DataStream, list: DataStreamListItem },
  {
    labels: { streamType: 'streamType', streamDataType: 'streamDataType' },
    times: ['createAt', 'updateAt'],
    json: ['dataPoints', 'dataPointNames'],
  },
)
