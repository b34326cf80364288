import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  csvLine,
  parseCsv,
  parseCsvRecords,
  CsvError,
  unneutralise,
} from '../../../src/kernel/csv.ts'

const csv = suite('csv')

csv('round trip :: quotes, commas, line breaks, JSON, nulls', () => {
  const cells = ['plain', 'a,b', 'say "hi"', 'two\nlines', { lat: 1.5 }, null, 42, ' padded ']
  const parsed = parseCsv(csvLine(cells) + csvLine(['x']))
  assert.equal(parsed[0], [
    'plain',
    'a,b',
    'say "hi"',
    'two\nlines',
    '{"lat":1.5}',
    '',
    '42',
    ' padded ',
  ])
  assert.equal(parsed[1], ['x'])
})

csv('BOM, LF endings, no final newline, blank lines :: parsed', () => {
  assert.equal(parseCsv('\ufeffa,b\n1,2\n\n3,4'), [
    ['a', 'b'],
    ['1', '2'],
    ['3', '4'],
  ])
})

csv('unterminated quote :: CsvError with the line', () => {
  try {
    parseCsv('a,b\n1,"open\n2,3')
    assert.unreachable()
  } catch (e) {
    assert.instance(e, CsvError)
    assert.is((e as CsvError).line, 2)
  }
})

csv('records :: keyed by header, empty cells absent', () => {
  const { header, records } = parseCsvRecords('deviceName,deviceID,IMEI\r\nd1,,123\r\n')
  assert.equal(header, ['deviceName', 'deviceID', 'IMEI'])
  assert.equal(records, [{ deviceName: 'd1', IMEI: '123' }])
})

csv(
  'formula-like text :: a leading quote on export, dropped again on import; numbers as they are',
  () => {
    const texts = ['=1+1', '+1', '-1+2', '@SUM(A1)', '\tx', '\rx', "'=x", "''-x"]
    const line = csvLine([...texts, -5, 'plain', "it's"])
    assert.is(line, `'=1+1,'+1,'-1+2,'@SUM(A1),'\tx,"'\rx",''=x,'''-x,-5,plain,it's\r\n`)
    const [cells] = parseCsv(line)
    assert.equal(cells!.map(unneutralise), [...texts, '-5', 'plain', "it's"])
  },
)

csv.run()
