import { CurrentAlert, HistoryAlert } from '../schemas/alerts.ts'
import { createSerializer } from './shape.ts'

export const alertWire = createSerializer(
  { current: CurrentAlert, history: HistoryAlert },
  {
    labels: { alertSeverity: 'alertSeverity' },
    times: ['startTime', 'endTime', 'ackAt', 'createAt', 'updateAt'],
    json: ['alertDetail'],
  },
)
