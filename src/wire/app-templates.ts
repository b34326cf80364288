import { AppTemplate, ConsoleTemplate } from '../schemas/app-templates.ts'
import { createSerializer } from './shape.ts'

export const appTemplateWire = createSerializer(
  { detail: AppTemplate, console: ConsoleTemplate },
  {
    labels: { templateType: 'templateType' },
    times: ['createAt', 'updateAt'],
    json: ['enum', 'places', 'defaultValues'],
  },
)
