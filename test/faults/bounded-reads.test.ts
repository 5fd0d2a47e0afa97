/**
 * Reads that must stay bounded whatever the memory holds: a traversal of a hub entity stops at
 * its bound inside a hop and says so.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { LIMITS } from '../../src/core/model/limits';
import { cleanup, recall, tmpMemory, withClient } from './kit';

after(cleanup);

test('recall_traverse of a hub stays within its bound inside a hop and says it was cut', async () => {
  // The report's hub: Root with 120 neighbours, each with 120 facts of its own (14,520 facts).
  const memory = tmpMemory('hub');
  const triples: { subject: string; predicate: string; object: string }[] = [];
  for (let i = 0; i < 120; i++) {
    triples.push({ subject: 'Root', predicate: 'uses', object: `N${i}` });
    for (let j = 0; j < 120; j++) triples.push({ subject: `N${i}`, predicate: 'uses', object: `M${i}_${j}` });
  }
  await withClient(memory, async (c) => {
    const { id } = await c.call('remember', { text: 'the hub graph', project: null });
    for (let at = 0; at < triples.length; at += 100)
      await c.call('extracted', { episode: id, facts: triples.slice(at, at + 100), extractor: 'test' });
  });
  const one = await recall(memory, ['traverse', 'Root', '--depth', '1', '--all', '--json']);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(JSON.parse(one.stdout).facts.length, 120);
  assert.equal(JSON.parse(one.stdout).truncated, false);

  const two = await recall(memory, ['traverse', 'Root', '--depth', '2', '--all', '--json']);
  assert.equal(two.code, 0, two.stderr);
  const t = JSON.parse(two.stdout);
  assert.ok(t.facts.length <= LIMITS.traverseFacts, `${t.facts.length} facts, bound ${LIMITS.traverseFacts}`);
  assert.equal(t.truncated, true);
  // Every fact of the first hop comes before any of the second, and every entity shown is an end of a fact shown.
  assert.equal(t.facts.filter((f: any) => f.depth === 1).length, 120);
  const ends = new Set(t.facts.flatMap((f: any) => [f.subject, f.object]));
  for (const e of t.entities) assert.ok(ends.has(e.name), e.name);
  const text = await recall(memory, ['traverse', 'Root', '--depth', '2', '--all']);
  assert.match(text.stdout, new RegExp(`cut at ${LIMITS.traverseFacts} facts`));
});
