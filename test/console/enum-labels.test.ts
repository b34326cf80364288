/** The console's copy of the enumeration labels (it may import only types of the server) equals src/enums.ts. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { enumerations } from '../../src/enums.ts'
import {
  enCodes,
  enEnums,
  enReasons,
  zhCodes,
  zhEnums,
  zhReasons,
} from '../../src/console/enum-labels.ts'
import { STATUS_REASONS } from '../../src/services/command-events.ts'
import { AUDIT_RESOURCES } from '../../src/kernel/audit-resources.ts'
import { routeAudit } from '../../src/http/audit-routes.ts'
import { ROUTE_TABLE } from '../../src/routes/table.ts'
import { SIGN_IN_ACTIONS } from '../../store/fields/audit-logs.ts'

const labels = suite('console enumeration labels')

labels(
  'every enumeration the console offers :: the API labels, English and Chinese, code for code',
  () => {
    const names = Object.keys(enEnums) as Array<keyof typeof enEnums>
    assert.ok(names.length >= 10, names.join())
    for (const name of names) {
      const api = (enumerations as Record<string, Record<string, { en: string; zh: string }>>)[name]
      assert.ok(api, `${name} is an enumeration of src/enums.ts`)
      const pick = (lang: 'en' | 'zh') =>
        Object.fromEntries(Object.entries(api).map(([code, l]) => [code, l[lang]]))
      assert.equal({ ...enEnums[name] }, pick('en'), `${name} en`)
      assert.equal({ ...zhEnums[name] }, pick('zh'), `${name} zh`)
    }
  },
)

labels(
  'the audit log’s codes :: every resource type and every action a route records has an English and a Chinese label',
  () => {
    const actions = new Set<string>(SIGN_IN_ACTIONS)
    for (const [method, path] of ROUTE_TABLE) {
      const audit = method === 'GET' ? null : routeAudit(method, path)
      if (!audit) continue
      actions.add(audit.action)
      // a device's or gateway's update may be recorded as a block or an unblock
      if (audit.action === 'update' && ['device', 'gateway'].includes(audit.resourceType))
        actions.add('block').add('unblock')
    }
    assert.ok(actions.size >= 20, [...actions].join())
    for (const [kind, codes] of [
      ['auditAction', [...actions]],
      ['auditResource', [...AUDIT_RESOURCES]],
      ['role', ['admin', 'user', 'viewer', 'application']],
    ] as const) {
      const missing = codes.filter((c) => !enCodes[kind][c] || !zhCodes[kind][c])
      assert.equal(missing, [], `${kind} without a label`)
      assert.equal(Object.keys(zhCodes[kind]).sort(), Object.keys(enCodes[kind]).sort(), kind)
    }
  },
)

labels(
  'the reasons of commands :: the console knows the API’s phrases, each with a Chinese label',
  () => {
    assert.equal({ ...enReasons }, { ...STATUS_REASONS })
    assert.equal(Object.keys(zhReasons).sort(), Object.keys(enReasons).sort())
    assert.ok(Object.values(zhReasons).every((s) => /[\u4e00-\u9fff]/.test(s)))
  },
)

labels.run()
