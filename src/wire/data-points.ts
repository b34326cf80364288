import { DATA_POINT_TABLE, type DataPointRecord } from '../../store/fields/product-model.ts'
import { DataPoint, DataPointListItem } from '../schemas/data-points.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const dataPointWire = recordSerializer<DataPointRecord>()(
  { detail: DataPoint, list: DataPointListItem },
  wireSpecOf(DATA_POINT_TABLE),
)
