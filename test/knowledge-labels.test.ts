/**
 * The knowledge bench's yardstick (src/bench/knowledge-match.ts, knowledge-labels.ts): the word
 * rule that decides a brief line states a labelled item (fixed pairs, several languages), the
 * junk-entity classifier, and the labels themselves (every quote is where it is said to be, folds
 * follow the project hash).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { checkLabels, foldOf, loadEntityLabels, loadLabels } from '../src/bench/knowledge-labels';
import { junkReason, sameKnowledge, states } from '../src/bench/knowledge-match';
import { ROOT } from './helpers';

describe('a brief line states a labelled item by its words', () => {
  const stated: [string, string][] = [
    [
      '- [rel_3] rule: When working with JSON output, never use grep; use jq.',
      'when working with json outputs, never use grep, but rather jq.',
    ],
    ['- [rel_1] fact: Tests use MSTest, FluentAssertions and NSubstitute', 'Tests: MSTest + FluentAssertions + NSubstitute.'],
    ['- [rel_8] rule: merge only after the change is reviewed', 'done will be used once the change has been reviewed and merged'],
    ['- [rel_1] decision: データベースは Supabase を使う', 'データベースは、Supabase を使います。'],
    ['- [rel_2] fact: aiscend 的代理端口是 10808（不是 7890）', 'aiscend 的代理端口是 **10808**，不是 7890。'],
    ['- [rel_7] rule: 不要使用表情符号', '不要使用表情符号'],
    ['- [rel_4] fact: Repositório privado: a pasta não é pública', 'a pasta nao é publica'],
    ['- [ep_1] 2026-01-01 note: Use TOML for configuration, the files are checked in', 'Use TOML for configuration files'],
  ];
  const notStated: [string, string, string][] = [
    [
      '- [rel_5] rule: Use grep for JSON output',
      'when working with json outputs, never use grep, but rather jq.',
      'a negative rule said positively',
    ],
    ['- [rel_7] rule: 使用表情符号', '不要使用表情符号', 'the same, in Chinese'],
    ['- [rel_6] fact: Tests run with pytest', 'Use TOML for configuration files', 'another item'],
    ['- [rel_9] rule: Never commit', 'Never commit sensitive files', 'less than 60% of the words'],
    [
      `- [ep_2] note: Use ${'the new dashboard for every report we send to the team each week, '.repeat(2)}TOML ${'and a longer story about nothing in particular that goes on '.repeat(2)}configuration files`,
      'Use TOML for configuration files',
      'the words, but spread over a long note',
    ],
  ];
  for (const [line, statement] of stated) test(`states: "${statement}"`, () => assert.equal(states(line, statement), true));
  for (const [line, statement, why] of notStated)
    test(`does not state (${why}): "${statement}"`, () => assert.equal(states(line, statement), false));
  test('an extracted item that is part of a labelled one is the same knowledge, either way round', () => {
    assert.equal(sameKnowledge('never use grep on JSON, use jq', 'when working with json outputs, never use grep, but rather jq.'), true);
    assert.equal(sameKnowledge('Use TOML for configuration files', 'Use TOML'), true);
    assert.equal(sameKnowledge('Use TOML for configuration files', 'Never commit sensitive files'), false);
  });
});

test('junk entities: stop words, pronouns, numbers and clause fragments, not names', () => {
  const junk = {
    The: 'stop word',
    If: 'stop word',
    Please: 'stop word',
    you: 'pronoun',
    user: 'pronoun',
    '42': 'number',
    '3.5%': 'number',
    'errors indicate the backend': 'clause fragment',
    'usually means the package': 'clause fragment',
    'changes.': 'clause fragment',
    'the package is': 'clause fragment',
  };
  for (const [name, reason] of Object.entries(junk)) assert.equal(junkReason(name), reason, name);
  for (const name of [
    'PostgreSQL',
    'Claude Code',
    'README.md',
    'next-auth',
    'Tailwind CSS',
    'npm',
    'データベース',
    'Bank of America',
    'v1.',
  ])
    assert.equal(junkReason(name), undefined, name);
});

test('the junk classifier calls none of the entity names a person judged names junk', () => {
  const judged = loadEntityLabels(path.join(ROOT, 'test/fixtures/knowledge/labels.json'))!;
  assert.ok(judged.names.length > 0 && judged.junk.length > 0);
  assert.deepEqual(
    judged.names.filter((n) => junkReason(n) !== undefined),
    [],
  );
});

describe('the labels', () => {
  const labels = loadLabels(path.join(ROOT, 'test/fixtures/knowledge/labels.json'));
  test('every quote is in its file where the label says, every fold is its project hash', () => {
    assert.deepEqual(checkLabels(labels), []);
  });
  test('at least 20 transcripts from 8 projects, instruction files, both folds, Chinese, Japanese and Portuguese', () => {
    const transcripts = labels.files.filter((f) => f.type === 'transcript');
    assert.ok(transcripts.length >= 20, `${transcripts.length} transcripts`);
    assert.ok(new Set(transcripts.map((f) => f.project)).size >= 8);
    assert.ok(labels.files.some((f) => f.type === 'instructions'));
    for (const fold of ['tune', 'held'])
      assert.ok(
        labels.files.some((f) => f.fold === fold && f.items.length > 0),
        fold,
      );
    const languages = new Set(labels.files.flatMap((f) => f.items.map((i) => i.language)));
    for (const l of ['en', 'zh', 'ja', 'pt']) assert.ok(languages.has(l), l);
  });
  test('a project never has files in both folds', () => {
    for (const f of labels.files) assert.equal(f.fold, foldOf(f.project), f.file);
  });
});
