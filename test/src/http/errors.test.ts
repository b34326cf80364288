/**
 * The one translation of errors into the API's error (src/http/errors.ts): each domain error of
 * src/kernel/errors.ts, and the query side's and stores' subclasses of them, to its status, errorCode, message,
 * errors and headers.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ApiError } from '../../../src/errors.ts'
import { toApiError } from '../../../src/http/errors.ts'
import {
  Conflict,
  Forbidden,
  Invalid,
  InvalidParameter,
  LastAdmin,
  NotFound,
  Referenced,
  TooMany,
  Unauthenticated,
} from '../../../src/kernel/errors.ts'
import { QueryTimeout } from '../../../query/deadline.ts'
import { QueryParamError } from '../../../query/range.ts'
import { WindowError } from '../../../store/windows.ts'
import * as store from '../../../store/errors.ts'

const errors = suite('toApiError')

/** What the root onError writes for `err`: status, body and headers. */
const wire = (err: unknown) => {
  const e = toApiError(err)
  return { status: e.status, body: e.toJSON(), headers: e.headers }
}

errors('each domain error :: its status, errorCode, default message and field errors', () => {
  const cases: Array<[unknown, number, string, string, Record<string, string>]> = [
    [new NotFound(), 404, 'DATA_NOT_FOUND', 'Not found', { id: 'not found' }],
    [
      new NotFound('groupID', 'no such group'),
      404,
      'DATA_NOT_FOUND',
      'Not found',
      { groupID: 'no such group' },
    ],
    [
      new Conflict('email'),
      400,
      'DATA_EXISTED',
      'The value is already taken',
      { email: 'already exists' },
    ],
    [
      new Referenced({ ids: 'you cannot delete yourself' }),
      400,
      'REFERENCED_ERROR',
      'The record is still in use',
      { ids: 'you cannot delete yourself' },
    ],
    [
      new Invalid({ a: 'x', b: 'y' }),
      422,
      'FORM_INVALID',
      'The request body is invalid',
      { a: 'x', b: 'y' },
    ],
    [
      new InvalidParameter('deviceID', 'no such device'),
      400,
      'PARAMETER_INVALID',
      'A query parameter is invalid',
      { deviceID: 'no such device' },
    ],
    [
      new LastAdmin('role', 'the last admin of a tenant cannot be demoted'),
      400,
      'PARAMETER_INVALID',
      'A query parameter is invalid',
      { role: 'the last admin of a tenant cannot be demoted' },
    ],
    [
      new Unauthenticated({ password: 'wrong password' }),
      401,
      'AUTH_FAILED',
      'Authentication failed',
      { password: 'wrong password' },
    ],
    [
      new Forbidden('signup', 'signup is disabled on this service'),
      403,
      'PERMISSION_DENIED',
      'Your role does not allow this',
      { signup: 'signup is disabled on this service' },
    ],
    [
      new QueryParamError({ startTime: 'bad' }),
      400,
      'PARAMETER_INVALID',
      'A query parameter is invalid',
      { startTime: 'bad' },
    ],
    [
      new WindowError('more than 10 windows'),
      400,
      'PARAMETER_INVALID',
      'A query parameter is invalid',
      { interval: 'more than 10 windows' },
    ],
  ]
  for (const [err, status, errorCode, message, fields] of cases)
    assert.equal(
      wire(err),
      { status, body: { errorCode, message, errors: fields }, headers: {} },
      String(err),
    )
})

errors('TooMany and Unavailable :: 429 and 503 with Retry-After; Unavailable says why', () => {
  assert.equal(wire(new TooMany({ email: 'too many failed logins; try again in 7 s' }, 7)), {
    status: 429,
    body: {
      errorCode: 'TOO_MANY_REQUESTS',
      message: 'Too many requests',
      errors: { email: 'too many failed logins; try again in 7 s' },
    },
    headers: { 'Retry-After': '7' },
  })
  for (const err of [
    new store.Unavailable('telemetry store is closed'),
    new QueryTimeout('telemetry store is closed'),
  ])
    assert.equal(wire(err), {
      status: 503,
      body: { errorCode: 'SERVICE_UNAVAILABLE', message: 'telemetry store is closed', errors: {} },
      headers: { 'Retry-After': '5' },
    })
})

errors('an ApiError :: as it is; any other error :: 500 without details', () => {
  const api = new ApiError('BAD_REQUEST', { body: 'not valid JSON' })
  assert.is(toApiError(api), api)
  for (const err of [new Error('SQLITE_BUSY: secret detail'), 'text', null])
    assert.equal(wire(err), {
      status: 500,
      body: { errorCode: 'INTERNAL_ERROR', message: 'Internal error', errors: {} },
      headers: {},
    })
})

errors('the stores’ errors :: the domain errors themselves, field and message kept', () => {
  const e = new store.Conflict('productName')
  assert.ok(e instanceof Conflict && e instanceof store.StoreError)
  assert.is(e.field, 'productName')
  assert.is(e.message, 'already exists')
  assert.is(new NotFound().message, 'not found')
})

errors.run()
