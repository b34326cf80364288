/** The console's copy of the enumeration labels (it may import only types of the server) equals src/enums.ts. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { enumerations } from '../../src/enums.ts'
import { enEnums, zhEnums } from '../../src/console/enum-labels.ts'

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

labels.run()
