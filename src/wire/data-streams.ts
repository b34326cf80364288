import { DATA_STREAM_DETAIL_TABLE, DATA_STREAM_TABLE } from '../../store/fields/product-model.ts'
import { DataStream, DataStreamListItem } from '../schemas/data-streams.ts'
import { tableSerializer } from './shape.ts'

/** A list item is read without its points; the detail with them (store/fields/product-model.ts). */
export const dataStreamWire = {
  ...tableSerializer(DATA_STREAM_TABLE, { list: DataStreamListItem }),
  ...tableSerializer(DATA_STREAM_DETAIL_TABLE, { detail: DataStream }),
}
