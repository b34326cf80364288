import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { TOPIC_MAX, topicFilterProblem } from '../../../src/rules/policies.ts'

const topics = suite('topicFilterProblem')

topics('plain and wildcard filters :: valid', () => {
  for (const t of [
    'inbox',
    'data/temp',
    '+',
    '#',
    'a/+/c',
    'a/#',
    '+/+/#',
    'a//b',
    'a/b/',
    'x'.repeat(TOPIC_MAX),
    'датчик/温度',
  ])
    assert.is(topicFilterProblem(t), null, t)
})

topics('empty :: must not be empty', () => {
  assert.is(topicFilterProblem(''), 'must not be empty')
})

topics('too long :: at most 200 characters', () => {
  assert.is(topicFilterProblem('x'.repeat(TOPIC_MAX + 1)), 'at most 200 characters')
})

topics('NUL character :: refused', () => {
  assert.match(topicFilterProblem('a\u0000b')!, /NUL/)
})

topics('leading slash :: refused as not relative', () => {
  assert.match(topicFilterProblem('/a/b')!, /relative/)
  assert.match(topicFilterProblem('/')!, /relative/)
})

topics('# not alone or not last :: refused', () => {
  for (const t of ['#/a', 'a/#/b', 'a#', 'a/b#', '##'])
    assert.match(topicFilterProblem(t)!, /'#' is only allowed/, t)
})

topics('+ inside a level :: refused', () => {
  for (const t of ['a+', 'a/+b', 'a/b+/c', '++'])
    assert.match(topicFilterProblem(t)!, /'\+' is only allowed/, t)
})

topics.run()
