import {
  DATA_STREAM_DETAIL_TABLE,
  DATA_STREAM_TABLE,
  type DataStreamDetailRecord,
  type DataStreamRecord,
} from '../../store/fields/product-model.ts'
import { DataStream, DataStreamListItem } from '../schemas/data-streams.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

/** A list item is read without its points; the detail with them (store/fields/product-model.ts). */
export const dataStreamWire = {
  ...recordSerializer<DataStreamRecord>()(
    { list: DataStreamListItem },
    wireSpecOf(DATA_STREAM_TABLE),
  ),
  ...recordSerializer<DataStreamDetailRecord>()(
    { detail: DataStream },
    wireSpecOf(DATA_STREAM_DETAIL_TABLE),
  ),
}
