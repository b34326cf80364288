import { APP_TEMPLATE_TABLE, type AppTemplateRecord } from '../../store/fields/product-model.ts'
import { AppTemplate, ConsoleTemplate } from '../schemas/app-templates.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

/** A template on a device console: `value`, its data point's last value, is absent (null) until given. */
export type ConsoleRecord = AppTemplateRecord & { value?: string | null }

export const appTemplateWire = {
  ...recordSerializer<AppTemplateRecord>()({ detail: AppTemplate }, wireSpecOf(APP_TEMPLATE_TABLE)),
  ...recordSerializer<ConsoleRecord>()(
    { console: ConsoleTemplate },
    wireSpecOf(APP_TEMPLATE_TABLE),
  ),
}
