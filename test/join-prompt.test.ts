/**
 * What Recall asks a model about a project's items said twice, and how it reads the answer
 * (core/ingest/join-prompt.ts). The items are the real pair of spatialvault's
 * .github/copilot-instructions.md and rules of the same file (test/fixtures/knowledge, origins in
 * its SOURCES.md); the answers are written here, as a model might answer, well and badly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildJoinPrompt, JOIN_LIMITS, readJoinAnswer, type JoinCandidate } from '../src/core/ingest/join-prompt';

const ITEMS: JoinCandidate[] = [
  { id: 'rel_1', kind: 'rule', statement: 'Use prepared statements and parameterized queries' },
  { id: 'rel_2', kind: 'rule', statement: 'Use parameterized queries to prevent SQL injection' },
  { id: 'rel_3', kind: 'rule', statement: 'DO NOT: Modify database migration files that have already been applied' },
  { id: 'rel_4', kind: 'rule', statement: 'Never modify existing migration files' },
  { id: 'rel_5', kind: 'fact', statement: 'Point clouds are served via STAC/3D GeoVolumes (stored in S3 as COPC files)' },
  { id: 'rel_6', kind: 'decision', statement: 'Store point clouds as COPC files in S3' },
];

test('the prompt lists each item with its id and kind, secrets replaced, and asks for JSON pairs', () => {
  const prompt = buildJoinPrompt([
    ...ITEMS,
    { id: 'rel_7', kind: 'rule', statement: 'Use the key ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI' },
  ]);
  for (const i of ITEMS) assert.ok(prompt.includes(`[${i.id}] (${i.kind}) ${i.statement}`), i.id);
  assert.doesNotMatch(prompt, /ghp_abcdefghijklmnopqrstuvwxyz0123456789/, 'a secret never reaches the model');
  assert.match(prompt, /\{"same": \[\{"id": "<the item said again>", "as": "<the item kept>"\}\]\}/);
  const many = Array.from({ length: JOIN_LIMITS.items + 5 }, (_, i) => ({
    id: `rel_${i + 1}`,
    kind: 'rule' as const,
    statement: `Rule ${i + 1}`,
  }));
  assert.equal(buildJoinPrompt(many).match(/^\[rel_\d+\]/gm)?.length, JOIN_LIMITS.items, 'at most JOIN_LIMITS.items items');
});

test('pairs are read from the answer in a fence or amid prose; what does not hold is dropped', () => {
  const fenced = 'Here you go:\n```json\n{"same": [{"id": "rel_2", "as": "rel_1"}, {"id": "rel_4", "as": "rel_3"}]}\n```\nHope this helps.';
  assert.deepEqual(readJoinAnswer(fenced, ITEMS), [
    { id: 'rel_2', as: 'rel_1' },
    { id: 'rel_4', as: 'rel_3' },
  ]);
  const bad = JSON.stringify({
    same: [
      { id: 'rel_9', as: 'rel_1' }, // an id it was not shown
      { id: 'rel_1', as: 'rel_1' }, // itself
      { id: 'rel_6', as: 'rel_5' }, // a decision is not the same as a fact
      { id: 'rel_2', as: 'rel_1' },
      { id: 'rel_4', as: 'rel_2' }, // rel_2 already goes in a pair
      { id: 42, as: 'rel_3' },
      'rel_3',
    ],
  });
  assert.deepEqual(readJoinAnswer(bad, ITEMS), [{ id: 'rel_2', as: 'rel_1' }]);
  assert.deepEqual(readJoinAnswer('{"same": []}', ITEMS), [], 'none found is an answer');
  assert.equal(readJoinAnswer('I think rel_2 and rel_1 are the same.', ITEMS), undefined, 'no JSON: not the answer asked for');
});
