import { ConnectLog } from '../schemas/logs.ts'
import { createSerializer, type Row, type WireCtx } from '../../wire/shape.ts'

const forms = createSerializer(
  { list: ConnectLog },
  { labels: { deviceStatus: 'connectStatus' }, times: ['msgTime', 'createAt', 'updateAt'] },
)

/** Connection logs of Variant B: the stored connection status as `deviceStatus`. */
export const connectLogWire = {
  list: (record: object, ctx: WireCtx): Row => {
    const row = record as Row
    return forms.list({ ...row, deviceStatus: row.connectStatus }, ctx)
  },
}
