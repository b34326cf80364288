/**
 * The alert engine's indexes (src/services/alert-index.ts): rules by data point, open alerts and waits by device,
 * latest values with their scope; and, on the real service, two tenants' rules over data points of the same name.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  alertsByDevice,
  deviceLatest,
  noAlerts,
  productRules,
  rulesFor,
  setLatest,
  type LiveRule,
} from '../../../src/services/alert-index.ts'
import { stepDevice, type Outcome } from '../../../src/services/alert-eval.ts'
import type { StoredValue } from '../../../src/kernel/events.ts'
import type { Formula } from '../../../query/formula.ts'
import type { AlertRef, AlertRuleRecord, IngestDevice } from '../../../store/types.ts'
import type { AlertRule } from '../../../src/schemas/alert-rules.ts'
import type { CurrentAlert } from '../../../src/schemas/alerts.ts'
import { startTestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { alertWorld, ruleBody, uplink } from '../routes/_alerts.ts'
import { ingestDevice } from './_steps.ts'

const index = suite('alert index')

const device = (id: number, tenantID = 't1') => ingestDevice(id, `d${id}`, tenantID)
const value = (dataPointID: string, v: StoredValue['value'], deviceID = 'd1'): StoredValue => ({
  productID: 'p',
  deviceID,
  dataPointID,
  time: 1,
  value: v,
})
/** A formula over `symbols` computed by `f` (every symbol has a number: the engine checks that first). */
const formula = (symbols: string[], f: (s: Record<string, number>) => number): Formula => ({
  symbols,
  evaluate: f,
  valueIn: (s) => (symbols.every((id) => typeof s[id] === 'number') ? f(s) : undefined),
})
/** A formula `<id> > <limit>` that counts its evaluations. */
const above = (id: string, limit: number, calls: string[]): Formula =>
  formula([id], (s) => (calls.push(id), s[id]! > limit ? 1 : 0))
const rule = (id: number, raise: Formula | null, devices: number[] | null = null): LiveRule => ({
  record: {
    id,
    ruleName: `r${id}`,
    condition: raise ? 'x' : null,
    alertSeverity: 1,
    alertContent: null,
    forSeconds: 0,
    clearForSeconds: 0,
    deviceIntIDs: devices,
  } as unknown as AlertRuleRecord,
  raise,
  clear: raise && formula(raise.symbols, (s) => Number(!raise.evaluate(s))),
  reads: raise ? raise.symbols : [],
  devices: devices && new Set(devices),
})
const outcome = (): Outcome => ({
  t: 5,
  raise: [],
  close: new Map(),
  closeRaised: [],
  put: [],
  drop: [],
})

index(
  'rulesFor :: the rules reading a point the uplink carries and every no-data rule, in rule order',
  () => {
    const calls: string[] = []
    const [temp, hum, both, quiet] = [
      rule(1, above('temp', 80, calls)),
      rule(2, above('hum', 80, calls)),
      rule(
        3,
        formula(['hum', 'temp'], () => 0),
      ),
      rule(4, null),
    ]
    const p = productRules([temp, hum, both, quiet], [])
    const ids = (vals: StoredValue[]) => rulesFor(p, vals).map((r) => r.record.id)
    assert.equal(ids([value('temp', 1)]), [1, 3, 4])
    assert.equal(ids([value('hum', 1), value('temp', 1)]), [1, 2, 3, 4])
    assert.equal(ids([value('other', 1)]), [4])
    assert.equal(ids([value('hum', 1)]), [2, 3, 4], 'same length, other point')
    assert.equal(ids([value('temp', 1)]), [1, 3, 4])
    assert.is(
      rulesFor(p, [value('temp', 2)]),
      rulesFor(p, [value('temp', 3)]),
      'one list per shape',
    )
    assert.equal(rulesFor(productRules([temp], []), [value('hum', 1)]), [])
  },
)

index('stepDevice :: a rule is evaluated when an uplink carries its point, not otherwise', () => {
  const calls: string[] = []
  const p = productRules([rule(1, above('temp', 80, calls)), rule(2, above('hum', 80, calls))], [])
  const latest = deviceLatest([['hum', 90]])
  const out = outcome()
  const alerts = noAlerts()
  stepDevice({ d: device(1), uplinks: [[value('temp', 50)]], alerts, rules: p, latest }, out)
  assert.equal(calls, ['temp'], 'hum held but was not sent: its rule is not visited')
  assert.equal(out.raise, [])
  stepDevice({ d: device(1), uplinks: [[value('temp', 90)]], alerts, rules: p, latest }, out)
  assert.equal(
    out.raise.map((a) => [a.ruleID, a.deviceIntID, a.alertDetail]),
    [[1, 1, { temp: 90 }]],
  )
  assert.equal([...alerts.open.keys()], [1], 'opened in this turn')
})

index('stepDevice :: a rule of other devices is not evaluated for this one', () => {
  const calls: string[] = []
  const p = productRules([rule(1, above('temp', 0, calls), [2])], [])
  const out = outcome()
  const turn = (d: IngestDevice) => ({
    d,
    uplinks: [[value('temp', 5)]],
    alerts: noAlerts(),
    rules: p,
    latest: deviceLatest([]),
  })
  stepDevice(turn(device(1)), out)
  assert.equal([calls.length, out.raise.length], [0, 0])
  stepDevice(turn(device(2)), out)
  assert.equal([calls.length, out.raise.map((a) => a.deviceIntID)], [1, [2]])
})

index('alertsByDevice :: open alerts by rule and built-in name, waits by rule, per device', () => {
  const alert = (id: number, ruleID: number | null, deviceIntID: number, alertName = 'x') =>
    ({ id, ruleID, deviceIntID, alertName }) as AlertRef
  const wait = (ruleID: number, deviceIntID: number) => ({
    ruleID,
    deviceIntID,
    phase: 'raise' as const,
    since: 1,
    detail: null,
  })
  const by = alertsByDevice(
    [alert(1, 7, 1), alert(2, null, 1, 'temp'), alert(3, 7, 2), alert(4, 7, 1)],
    [wait(7, 2), wait(8, 2)],
  )
  assert.equal([...by.keys()], [1, 2])
  assert.equal(
    [...by.get(1)!.open].map(([r, a]) => [r, a.id]),
    [[7, 1]],
    'the first one wins',
  )
  assert.equal(
    [...by.get(1)!.builtIn].map(([n, a]) => [n, a.id]),
    [['temp', 2]],
  )
  assert.equal(
    [...by.get(2)!.open].map(([r, a]) => [r, a.id]),
    [[7, 3]],
  )
  assert.equal([...by.get(2)!.waits.keys()], [7, 8])
  assert.is(by.get(1)!.waits.size, 0)
})

index('setLatest :: numbers and booleans in the scope, other values out of it', () => {
  const l = deviceLatest([
    ['a', 3],
    ['b', true],
    ['c', 'text'],
  ])
  assert.equal(
    [{ ...l.scope }, [...l.last]],
    [
      { a: 3, b: 1 },
      [
        ['a', 3],
        ['b', true],
        ['c', 'text'],
      ],
    ],
  )
  setLatest(l, 'a', 'now text')
  setLatest(l, 'c', false)
  assert.equal({ ...l.scope }, { b: 1, c: 0 })
  assert.equal(l.last.get('a'), 'now text')
  assert.is(Object.getPrototypeOf(l.scope), null)
})

index.run()

const tenants = suite('alert engine: two tenants, rules over data points of the same name')
tenants('each tenant’s rule sees only its own devices’ values :: one alert each', async () => {
  const t = await startTestService({ INGEST_LINGER_MS: '2' })
  try {
    const other = await t.newTenant()
    const [a, b] = [await alertWorld(t.admin, 1), await alertWorld(other, 1)]
    const [da, db] = [a.devices[0], b.devices[0]]
    const ra = (
      await t.admin.post<Wire<typeof AlertRule>>(
        '/api/v1/alert_rules',
        ruleBody(a, { condition: 'temp > 80' }),
      )
    ).body
    const rb = (
      await other.post<Wire<typeof AlertRule>>(
        '/api/v1/alert_rules',
        ruleBody(b, { condition: 'temp > 50' }),
      )
    ).body
    await Promise.all([uplink(t, da, { temp: 60 }), uplink(t, db, { temp: 60 })])
    const current = async (c: typeof t.admin) =>
      (await c.get<Page<Wire<typeof CurrentAlert>>>('/api/v1/current_alerts')).body.items.map(
        (x) => [x.ruleID, x.deviceID],
      )
    assert.equal(await current(t.admin), [])
    assert.equal(await current(other), [[rb.id, db.deviceID]])
    await uplink(t, da, { temp: 90 })
    assert.equal(await current(t.admin), [[ra.id, da.deviceID]])
    assert.equal(await current(other), [[rb.id, db.deviceID]])
  } finally {
    await t.close()
  }
})
tenants.run()
