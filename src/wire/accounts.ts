import {
  APPLICATION_TABLE,
  USER_TABLE,
  type ApplicationDetail,
  type UserDetail,
} from '../../store/fields/accounts.ts'
import { Application, ApplicationCreated, User } from '../schemas/accounts.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const userWire = recordSerializer<UserDetail>()({ detail: User }, wireSpecOf(USER_TABLE))

/** An application; the create answer also carries its token, shown that once. */
export const applicationWire = recordSerializer<ApplicationDetail & { appToken?: string }>()(
  { detail: Application, created: ApplicationCreated },
  wireSpecOf(APPLICATION_TABLE),
)
