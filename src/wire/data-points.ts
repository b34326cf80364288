import { DATA_POINT_TABLE } from '../../store/fields/product-model.ts'
import { DataPoint, DataPointListItem } from '../schemas/data-points.ts'
import { tableSerializer } from './shape.ts'

export const dataPointWire = tableSerializer(DATA_POINT_TABLE, {
  detail: DataPoint,
  list: DataPointListItem,
})
