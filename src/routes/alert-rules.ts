import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Alert rules'

const RULE =
  "`condition` is a boolean formula over the product's dataPointIDs (e.g. `temp > 80 and hum < 20`); it must " +
  'hold for `forSeconds` before the alert opens. The alert clears once `clearCondition` (default ' +
  '`not (condition)`) held for `clearForSeconds`. A no-data rule has `noDataSeconds` instead of a condition. ' +
  '`alertContent` may use `{deviceName}` and `{value:<dataPointID>}`.'

/** Alert rules of the tenant, and their dry run. */
export function alertRuleRoutes({ meta, services }: Deps, { alertRules: s }: WireShapes) {
  const detail = Form.of(s.AlertRule, s.alertRuleWire.detail)
  const r = crud(new Router(), {
    tag,
    path: '/alert_rules',
    store: meta.alertRules,
    service: services.alertRules,
    list: { summary: 'List alert rules', query: listQuery(s.alertRuleFilters), form: detail },
    detail: { summary: 'An alert rule', form: detail },
    create: {
      summary: 'Create an alert rule',
      description: RULE,
      body: s.AlertRuleCreate,
      form: detail,
    },
    update: {
      summary: 'Edit an alert rule',
      description: `${RULE} Disabling a rule moves its open alerts to the history.`,
      body: s.AlertRuleUpdate,
      form: detail,
    },
    remove: { summary: 'Delete alert rules (all or none); their open alerts move to the history' },
  })

  r.typed(
    {
      method: 'post',
      path: '/alert_rules/test',
      tag,
      summary: "Dry run: the alerts a rule would have raised over a device's stored values",
      description: `${RULE} Writes nothing; endTime null: still open at the end of the range.`,
      body: s.AlertRuleTest,
      response: s.AlertRuleTestResult,
    },
    async (c, { body }) => {
      const found = await services.alertRules.test(actorOf(c), body)
      const ctx = wireCtx(c)
      return c.json(found.map((a) => s.alertRuleWire.testAlert(a, ctx)))
    },
  )

  return r
}
