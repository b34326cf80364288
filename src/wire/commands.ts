import { PublishAnswer } from '../schemas/commands.ts'
import { createSerializer } from './shape.ts'

/** The answer of a device publish. */
export const commandWire = createSerializer(
  { answer: PublishAnswer },
  { labels: { publishStatus: 'publishStatus', commandStatus: 'commandStatus' } },
)
