import {
  CURRENT_ALERT_TABLE,
  HISTORY_ALERT_TABLE,
  type CurrentAlertRecord,
  type HistoryAlertRecord,
} from '../../store/fields/alerts.ts'
import { CurrentAlert, HistoryAlert } from '../schemas/alerts.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

const current = recordSerializer<CurrentAlertRecord>()(
  { current: CurrentAlert },
  wireSpecOf(CURRENT_ALERT_TABLE),
)
const history = recordSerializer<HistoryAlertRecord>()(
  { history: HistoryAlert },
  wireSpecOf(HISTORY_ALERT_TABLE),
)

export const alertWire = { ...current, ...history }
