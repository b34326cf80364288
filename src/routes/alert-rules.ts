import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Alert rules'

const RULE =
  "`condition` is a boolean formula over the product's dataPointIDs (e.g. `temp > 80 and hum < 20`); it must " +
  'hold for `forSeconds` before the alert opens. The alert clears once `clearCondition` (default ' +
  '`not (condition)`) held for `clearForSeconds`. A no-data rule has `noDataSeconds` instead of a condition. ' +
  '`alertContent` may use `{deviceName}` and `{value:<dataPointID>}`.'

/** Alert rules of the tenant, and their dry run. */
export function alertRuleRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const s = shapes.alertRules
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/alert_rules',
      tag,
      summary: 'List alert rules',
      query: listQuery(s.alertRuleFilters),
      response: Page(s.AlertRule),
    },
    async (c, { query }) => {
      const { items, count } = await meta.alertRules.list(c.get('tenant'), query)
      const ctx = wireCtx(c)
      return c.json(
        pageOf(
          items.map((x) => s.alertRuleWire.detail(x, ctx)),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/alert_rules/:id',
      tag,
      summary: 'An alert rule',
      response: s.AlertRule,
    },
    async (c, { id }) =>
      c.json(s.alertRuleWire.detail(await meta.alertRules.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'post',
      path: '/alert_rules',
      tag,
      summary: 'Create an alert rule',
      description: RULE,
      body: s.AlertRuleCreate,
      response: s.AlertRule,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.alertRules.create(actorOf(c), body)
      return c.json(s.alertRuleWire.detail(created, wireCtx(c)), 201)
    },
  )

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

  r.typed(
    {
      method: 'put',
      path: '/alert_rules/:id',
      tag,
      summary: 'Edit an alert rule',
      description: `${RULE} Disabling a rule moves its open alerts to the history.`,
      body: s.AlertRuleUpdate,
      response: s.AlertRule,
    },
    async (c, { id, body }) => {
      const updated = await services.alertRules.update(actorOf(c), id, body)
      return c.json(s.alertRuleWire.detail(updated, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/alert_rules',
      tag,
      summary: 'Delete alert rules (all or none); their open alerts move to the history',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.alertRules.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
