import { PublishAnswer } from '../schemas/commands.ts'
import type { CommandRecord } from '../../store/types.ts'
import { recordSerializer } from './shape.ts'

/** The answer of a device publish: from the fields of the command it stored (services/command-steps.ts answerOf). */
export const commandWire = recordSerializer<
  Pick<CommandRecord, 'taskID' | 'commandStatus' | 'publishStatus' | 'statusReason'>
>()(
  { answer: PublishAnswer },
  { labels: { publishStatus: 'publishStatus', commandStatus: 'commandStatus' } },
)
