import { Application, ApplicationCreated, User } from '../schemas/accounts.ts'
import { createSerializer } from './shape.ts'

export const userWire = createSerializer({ detail: User }, { times: ['createAt', 'updateAt'] })

export const applicationWire = createSerializer(
  { detail: Application, created: ApplicationCreated },
  { times: ['expiredAt', 'createAt', 'updateAt'] },
)
