/**
 * Facts for a question (retrieval/facts.ts), in a real memory on disk: the graph around the top
 * entities and the nearest by embedding, fused and floored by confidence; the vector channel's
 * hits are rowids, so a shared memory's facts (ids rel_<origin>_N) come through it too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { ensureOrigin } from '../src/core/store/ids';
import { tmpFolder } from './helpers';

const person = { authority: 'human' as const, source: 'test' };

test('facts: the graph around the top entities and the nearest by embedding, fused, floored by confidence', async () => {
  const m = await Memory.open(tmpFolder('core'), { extract: false });
  const billing = m.relate({ subject: 'billing', predicate: 'uses', object: 'Postgres' }, person).id;
  const weak = m.relate({ subject: 'billing', predicate: 'runs on', object: 'Fridays', prior: 'speculative' }, person).id;
  const unrelated = m.relate({ subject: 'frontend', predicate: 'uses', object: 'Svelte' }, person).id;
  const note = m.remember({ text: 'billing does not run on Fridays' }, person).id;
  // Contradicted until its confidence is under the floor (0.15): left out of answers, kept in history.
  for (let i = 0; i < 15; i++) m.citeEvidence({ id: weak, episode: note, polarity: -1 }, person);
  assert.ok(m.fact(weak).effective_confidence < 0.15);
  const keyword = m.query({ query: 'billing' });
  assert.deepEqual(
    keyword.facts.map((f) => f.id),
    [billing],
    "graph: the named entity's facts, above the floor",
  );
  assert.deepEqual(
    m
      .query({ query: 'billing', history: true })
      .facts.map((f) => f.id)
      .sort(),
    [billing, weak].sort(),
  );
  // The vector channel's facts (rowids, best first, as the service computes them) join the graph's.
  const vectorHits = { episode: [], entity: [], fact: [{ rowid: Number(unrelated.slice(4)), score: 0.9 }] };
  const hybrid = m.query({ query: 'billing', mode: 'hybrid', vectorHits });
  assert.deepEqual(
    hybrid.facts.map((f) => f.id),
    [billing, unrelated],
  );
  assert.ok(hybrid.channels.includes('vector'));
  const vector = m.query({ query: 'billing', mode: 'vector', vectorHits });
  assert.deepEqual(
    vector.facts.map((f) => f.id),
    [unrelated],
    'vector mode: no graph channel',
  );
  assert.deepEqual(vector.entities, []);
  m.close();
});

test("a shared memory's facts come through the vector channel: hits are rowids, its ids are rel_<origin>_N", async () => {
  const dir = tmpFolder('core');
  const origin = ensureOrigin(dir);
  const m = await Memory.open(dir);
  m.relate({ subject: 'billing', predicate: 'runs on', object: 'Postgres' }, person);
  const id = m.relate({ subject: 'frontend', predicate: 'uses', object: 'Svelte' }, person).id;
  assert.match(id, new RegExp(`^rel_${origin}_\\d+$`));
  const [rowid] = m.rowidsOf('rel', [id]);
  assert.ok(rowid !== undefined);
  const vector = m.query({ query: 'anything', mode: 'vector', vectorHits: { episode: [], entity: [], fact: [{ rowid, score: 0.9 }] } });
  assert.deepEqual(
    vector.facts.map((f) => f.id),
    [id],
  );
  m.close();
});
